#!/usr/bin/env python3
"""Test servers for tests/gate: origins, a canary and a DNS server.

  servers.py http ADDR PORT [--tls CERT KEY]   HTTP/1.1 origin (keep-alive)
  servers.py banner ADDR PORT                   plain TCP: banner, then echo
  servers.py canary ADDR PORT LOGFILE           logs every connection
  servers.py dns ADDR PORT TABLE LOGFILE [MODE]  A/AAAA from TABLE

Origin paths: /hello, /bytes/N (N deterministic bytes), POST /echo
(echoes the body, Content-Length or chunked), /close (Connection:
close, body ends at EOF), /headers (the request line and headers), /stream/N
(N chunks "event i" 0.4 s apart, chunked: a stream).  DNS TABLE lines: "name A addr [addr2]" or
"name AAAA addr"; a name with two A addresses answers the first on the
first query and the second on every later one (DNS rebinding), TTL 0.
A broken DNS server (MODE): --silent never answers, --servfail answers
SERVFAIL, --tc answers truncated (and nothing serves TCP).  Every mode
logs the queries it gets.
"""
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def pattern(n):
    block = bytes(range(256)) * 256
    out = bytearray()
    while len(out) < n:
        out += block
    return bytes(out[:n])


class Origin(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, body, close=False, ctype="text/plain"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Origin-Host", self.headers.get("Host", "-"))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/hello":
            self.send(b"hello from origin %s\n" % self.server.tag.encode())
        elif self.path.startswith("/bytes/"):
            self.send(pattern(int(self.path[7:])), ctype="application/octet-stream")
        elif self.path == "/close":
            self.send(b"closing body\n", close=True)
        elif self.path.split("?")[0] == "/headers":
            self.send((self.requestline + "\n" + str(self.headers)).encode())
        elif self.path.startswith("/stream/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(int(self.path[8:])):
                d = b"data: event %d\n\n" % i
                self.wfile.write(b"%x\r\n%s\r\n" % (len(d), d))
                self.wfile.flush()
                time.sleep(0.4)
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_error(404)

    def read_chunked(self):
        body = b""
        while True:
            line = self.rfile.readline()
            size = int(line.split(b";")[0], 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b""):
                    pass
                return body
            body += self.rfile.read(size)
            self.rfile.readline()

    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = self.read_chunked()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send(b"echo:" + body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512


def http(addr, port, tls=None):
    srv = Server((addr, int(port)), Origin)
    srv.tag = "%s:%s%s" % (addr, port, " tls" if tls else "")
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(tls[0], tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()


class Banner(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.sendall(b"SSH-2.0-tgat-banner\r\n")
        while True:
            d = self.request.recv(65536)
            if not d:
                break
            self.request.sendall(d)


class TServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512


def canary(addr, port, log):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(port)))
    s.listen(16)
    while True:
        c, peer = s.accept()
        with open(log, "a") as f:
            f.write("CONNECTED %s:%d\n" % peer)
        c.close()


def dns(addr, port, table, log, mode=None):
    recs = {}
    for line in open(table):
        f = line.split()
        if len(f) >= 3:
            recs.setdefault((f[0].lower(), f[1]), []).extend(f[2:])
    count = {}
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, int(port)))
    while True:
        q, peer = s.recvfrom(4096)
        try:
            qid, flags, qd = struct.unpack("!HHH", q[:6])
            off, labels = 12, []
            while q[off]:
                labels.append(q[off + 1:off + 1 + q[off]].decode())
                off += 1 + q[off]
            qtype, = struct.unpack("!H", q[off + 1:off + 3])
            qend = off + 5
        except Exception:
            continue
        name = ".".join(labels).lower()
        tname = {1: "A", 28: "AAAA"}.get(qtype, str(qtype))
        with open(log, "a") as f:
            f.write("QUERY %s %s\n" % (name, tname))
        if mode == "--silent":
            continue
        if mode in ("--servfail", "--tc"):
            flags = 0x8182 if mode == "--servfail" else 0x8380
            hdr = struct.pack("!HHHHHH", qid, flags, 1, 0, 0, 0)
            s.sendto(hdr + q[12:qend], peer)
            continue
        addrs = recs.get((name, tname))
        ans = b""
        rcode = 0
        if addrs is None:
            rcode = 0 if any(k[0] == name for k in recs) else 3
        else:
            n = count.get((name, tname), 0)
            count[(name, tname)] = n + 1
            a = addrs[0] if n == 0 or len(addrs) == 1 else addrs[1]
            fam = socket.AF_INET if tname == "A" else socket.AF_INET6
            raw = socket.inet_pton(fam, a)
            ttl = 0 if len(addrs) > 1 else 30
            ans = struct.pack("!HHHIH", 0xC00C, qtype, 1, ttl, len(raw)) + raw
        hdr = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1, 1 if ans else 0, 0, 0)
        s.sendto(hdr + q[12:qend] + ans, peer)


def main():
    mode = sys.argv[1]
    if mode == "http":
        tls = None
        if len(sys.argv) > 4 and sys.argv[4] == "--tls":
            tls = (sys.argv[5], sys.argv[6])
        http(sys.argv[2], sys.argv[3], tls)
    elif mode == "banner":
        TServer((sys.argv[2], int(sys.argv[3])), Banner).serve_forever()
    elif mode == "canary":
        canary(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "dns":
        dns(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], *sys.argv[6:7])


if __name__ == "__main__":
    main()
