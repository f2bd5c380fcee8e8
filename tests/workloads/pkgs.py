# pkgs.py WWW BASE: the test internet's package registries, as static
# files under WWW (served at BASE = https://origin.test/static):
#   npm/aisb-hello            npm metadata (a directory: its index.html)
#   npm/aisb-hello/-/*.tgz    the tarball, with sha1 shasum and sha512
#                             integrity in the metadata
#   pypi/simple/              a PEP 503 index with one project, aisb-hello,
#                             and its wheel (RECORD hashes as pip checks them)
# Everything is generated here, nothing is fetched.
import base64, hashlib, io, json, os, sys, tarfile, zipfile
www = sys.argv[1]
# npm: a package "aisb-hello" 1.0.0
os.makedirs(f"{www}/npm/aisb-hello/-", exist_ok=True)
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for name, data in [("package/package.json", json.dumps({"name": "aisb-hello", "version": "1.0.0", "main": "index.js"}).encode()),
                       ("package/index.js", b"module.exports = () => 'hello from aisb-hello';\n")]:
        ti = tarfile.TarInfo(name); ti.size = len(data); ti.mode = 0o644; ti.mtime = 0
        t.addfile(ti, io.BytesIO(data))
tgz = buf.getvalue()
open(f"{www}/npm/aisb-hello/-/aisb-hello-1.0.0.tgz", "wb").write(tgz)
base = sys.argv[2]
meta = {"name": "aisb-hello", "dist-tags": {"latest": "1.0.0"},
        "versions": {"1.0.0": {"name": "aisb-hello", "version": "1.0.0", "main": "index.js",
            "dist": {"tarball": f"{base}/npm/aisb-hello/-/aisb-hello-1.0.0.tgz",
                     "shasum": hashlib.sha1(tgz).hexdigest(),
                     "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}}}}
open(f"{www}/npm/aisb-hello/index.html", "w").write(json.dumps(meta))
# pip: a wheel aisb_hello 1.0
os.makedirs(f"{www}/pypi/simple/aisb-hello", exist_ok=True)
files = {"aisb_hello.py": b"def hello():\n    return 'hello from aisb_hello'\n",
         "aisb_hello-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: aisb-hello\nVersion: 1.0\n",
         "aisb_hello-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: aisb-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = ""
for n, d in files.items():
    rec += "%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d))
rec += "aisb_hello-1.0.dist-info/RECORD,,\n"
files["aisb_hello-1.0.dist-info/RECORD"] = rec.encode()
wb = io.BytesIO()
with zipfile.ZipFile(wb, "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
whl = wb.getvalue()
wn = "aisb_hello-1.0-py3-none-any.whl"
open(f"{www}/pypi/simple/aisb-hello/{wn}", "wb").write(whl)
open(f"{www}/pypi/simple/aisb-hello/index.html", "w").write(
    '<!DOCTYPE html><html><body><a href="%s#sha256=%s">%s</a></body></html>\n' % (wn, hashlib.sha256(whl).hexdigest(), wn))
open(f"{www}/pypi/simple/index.html", "w").write('<!DOCTYPE html><html><body><a href="aisb-hello/">aisb-hello</a></body></html>\n')
