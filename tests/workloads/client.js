// client.js MODE URL: fetch URL from inside a session and print the body,
// or "ERR <reason>" (exit 1).  Modes: fetch (undici), http (the http or
// https module, by scheme).  Node before 24 ignores the proxy variables,
// so both reach the gate through its DNS stub and the capture path.
const [mode, url] = process.argv.slice(2);
function fail(e) {
	console.log("ERR " + String((e && e.cause) || e));
	process.exit(1);
}
if (mode === "fetch") {
	fetch(url).then(async (r) => {
		const t = await r.text();
		if (!r.ok)
			console.log("HTTP " + r.status);
		process.stdout.write(t);
		process.exitCode = r.ok ? 0 : 1;
	}, fail);
} else {
	const m = require(url.startsWith("https:") ? "https" : "http");
	m.get(url, (r) => {
		r.setEncoding("utf8");
		r.on("data", (d) => process.stdout.write(d));
		r.on("end", () => { process.exitCode = r.statusCode === 200 ? 0 : 1; });
	}).on("error", fail);
}
