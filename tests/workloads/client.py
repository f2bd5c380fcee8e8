# client.py MODE URL: fetch URL from inside a session and print the body,
# or "ERR <reason>" (exit 1).  Modes:
#   urllib  urllib.request (honours the proxy variables, as pip and most
#           Python tools do; an HTTP error prints its status and body)
#   socket  its own getaddrinfo + connect + (TLS with the default trust
#           store), ignoring every proxy variable, as a Go or Rust
#           binary with its own resolver would
import socket, ssl, sys, urllib.error, urllib.parse, urllib.request

mode, url = sys.argv[1], sys.argv[2]
try:
    if mode == "urllib":
        try:
            body = urllib.request.urlopen(url, timeout=10).read()
        except urllib.error.HTTPError as e:
            print("HTTP %d %s" % (e.code, e.headers.get("X-Aisb-Reason", "")))
            sys.stdout.write(e.read().decode())
            sys.exit(1)
    else:
        u = urllib.parse.urlsplit(url)
        port = u.port or (443 if u.scheme == "https" else 80)
        s = socket.create_connection((u.hostname, port), timeout=10)
        if u.scheme == "https":
            s = ssl.create_default_context().wrap_socket(s, server_hostname=u.hostname)
        s.sendall(("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (u.path or "/", u.hostname)).encode())
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        body = data.partition(b"\r\n\r\n")[2]
    sys.stdout.write(body.decode())
except Exception as e:  # the test reads the reason
    print("ERR %s: %s" % (type(e).__name__, e))
    sys.exit(1)
