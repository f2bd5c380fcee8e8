#!/usr/bin/env python3
"""Malformed input corpora for the gate (run inside the sandbox netns).

  malformed.py http PORT   each request: a 400 or a close, never a 2xx
  malformed.py dns         each packet: no answer, or FORMERR/NOTIMP/
                           REFUSED/NXDOMAIN, never an address
Prints one TAP line per case (numbering is done by the caller: "ok - ").
"""
import socket
import struct
import sys

H = "Host: origin.tgat.test:23080\r\n"
U = "http://origin.tgat.test:23080/hello"

HTTP = [
    b"GET " + U.encode() + b" HTTP/1.1\n" + H.encode() + b"\n",           # bare LF
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\rb\r\n\r\n",  # bare CR
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\x00b\r\n\r\n",  # NUL
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\x01b\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\x7fb\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\x1bb\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\r\n b\r\n\r\n",  # obs-fold
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: a\r\n\tb\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + H.encode() + b"\r\n",   # dup Host
    b"GET " + U.encode() + b" HTTP/1.1\r\nHost: other.example\r\n\r\n",  # Host mismatch
    b"GET " + U.encode() + b" HTTP/1.1\r\nHost: origin.tgat.test:1\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: 1\r\nContent-Length: 1\r\n\r\na",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Transfer-Encoding: gzip, chunked\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Transfer-Encoding: identity\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.0\r\n" + H.encode() + b"Transfer-Encoding: chunked\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: -1\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: 1a\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: 99999999999999999999\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length: +5\r\n\r\n",
    b"POST " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Content-Length:\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Bad Name: x\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"Name : x\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b": novalue\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"NoColon\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/2.0\r\n" + H.encode() + b"\r\n",
    b"GET " + U.encode() + b" HTTP/1.2\r\n" + H.encode() + b"\r\n",
    b"GET " + U.encode() + b" http/1.1\r\n" + H.encode() + b"\r\n",
    b"GET " + U.encode() + b"\r\n" + H.encode() + b"\r\n",                  # HTTP/0.9 style
    b"GET  " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"\r\n",        # two spaces
    b"GET " + U.encode() + b"  HTTP/1.1\r\n" + H.encode() + b"\r\n",
    b"G(T " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"\r\n",
    b" GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"\r\n",
    b"\r\nGET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"\r\n",
    b"VERYLONGMETHODNAMEXX " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"\r\n",
    b"GET /hello HTTP/1.1\r\n" + H.encode() + b"\r\n",                      # origin-form
    b"GET * HTTP/1.1\r\n" + H.encode() + b"\r\n",
    b"GET https://origin.tgat.test:23443/ HTTP/1.1\r\nHost: origin.tgat.test:23443\r\n\r\n",
    b"GET ftp://origin.tgat.test/ HTTP/1.1\r\n\r\n",
    b"GET http://user:pw@origin.tgat.test:23080/ HTTP/1.1\r\n\r\n",
    b"GET http://origin.tgat.test:0/ HTTP/1.1\r\n\r\n",
    b"GET http://origin.tgat.test:65536/ HTTP/1.1\r\n\r\n",
    b"GET http://origin.tgat.test:80a/ HTTP/1.1\r\n\r\n",
    b"GET http://:23080/ HTTP/1.1\r\n\r\n",
    b"GET http:///x HTTP/1.1\r\n\r\n",
    b"GET http://origin.tgat.test%00.evil/ HTTP/1.1\r\n\r\n",
    b"GET http://[::1/ HTTP/1.1\r\n\r\n",
    b"GET http://a:b:c/ HTTP/1.1\r\n\r\n",
    b"GET http://origin.tgat.test\x80/ HTTP/1.1\r\n\r\n",
    b"CONNECT origin.tgat.test HTTP/1.1\r\n\r\n",                            # no port
    b"CONNECT origin.tgat.test: HTTP/1.1\r\n\r\n",
    b"CONNECT :443 HTTP/1.1\r\n\r\n",
    b"CONNECT origin.tgat.test:23022 HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
    b"CONNECT origin.tgat.test:23022 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: " + b"a" * 17000 + b"\r\n\r\n",  # > 16 KiB
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"".join(b"X%d: y\r\n" % i for i in range(120)) + b"\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode() + b"X: \xff\xfe\x00\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40,           # TLS hello
    b"SSH-2.0-OpenSSH_9.2\r\n\r\n",
    b"\x00" * 64,
    b"GET\r\n\r\n",
    b"GET " + U.encode() + b" HTTP/1.1\r\n" + H.encode(),                    # never ends
]


def http(port):
    for i, req in enumerate(HTTP):
        s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
        try:
            s.sendall(req)
            s.shutdown(socket.SHUT_WR)
            resp = b""
            while True:
                d = s.recv(65536)
                if not d:
                    break
                resp += d
        except (ConnectionResetError, BrokenPipeError):
            resp = resp if 'resp' in dir() else b""
        except socket.timeout:
            resp = b"TIMEOUT"
        finally:
            s.close()
        first = resp.split(b"\r\n", 1)[0].decode("latin-1")
        good = resp == b"" or first.startswith("HTTP/1.1 400")
        print("%s - http case %d: %s" % ("ok" if good else "not ok", i,
              first or "closed"))


def name(n):
    return b"".join(bytes([len(l)]) + l for l in n.split(b".")) + b"\0"


def q(qid=0x1234, flags=0x0100, qd=1, an=0, ns=0, ar=0, body=None):
    body = body if body is not None else name(b"origin.tgat.test") + b"\0\1\0\1"
    return struct.pack("!HHHHHH", qid, flags, qd, an, ns, ar) + body


DNS = [
    b"", b"\x12", b"\x12\x34\x01\x00\x00\x01", q(body=b""),
    q(qd=0, body=b""), q(qd=2), q(an=1), q(ns=1), q(ar=5),
    q(flags=0x8100),                                   # a response
    q(flags=0x2900),                                   # opcode UPDATE
    q(flags=0x1100),                                   # opcode IQUERY
    q(body=b"\xc0\x0c\0\1\0\1"),                       # compression pointer
    q(body=b"\x06origin\xc0\x0c\0\1\0\1"),
    q(body=b"\x40" + b"a" * 64 + b"\0\0\1\0\1"),       # label > 63
    q(body=b"\x80abc\0\0\1\0\1"),                      # extended label type
    q(body=b"\x3f" + b"a" * 63 + (b"\x3f" + b"b" * 63) * 4 + b"\0\0\1\0\1"),  # name > 255
    q(body=b"\x06origin\x04tgat"),                     # unterminated
    q(body=b"\x06origin\x04tgat\x04test\0\0"),         # truncated type
    q(body=b"\x06origin\x04tgat\x04test\0\0\1"),        # truncated class
    q(body=b"\x05or\x00gn\x04tgat\x04test\0\0\1\0\1"),  # NUL in label
    q(body=b"\x06or.gin\x04tgat\x04test\0\0\1\0\1"),
    q(body=b"\x06OR\xffGIN\x04tgat\x04test\0\0\1\0\1"),
    q(body=b"\0\0\1\0\1"),                             # root name
    q(body=name(b"origin.tgat.test") + b"\0\1\0\3"),  # class CH
    q(body=name(b"origin.tgat.test") + b"\0\1\0\xff"),
    q(body=b"\x3f" * 300),
    b"\xff" * 512,
    b"\x00" * 12,
    q() + b"\x00" * 5000,                              # oversized
    q(body=name(b"127.0.0.1") + b"\0\1\0\1"),
    q(body=name(b"2130706433") + b"\0\1\0\1"),
]


def dns():
    for i, pkt in enumerate(DNS):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(0.3)
        s.sendto(pkt, ("127.0.0.1", 53))
        try:
            r = s.recv(65536)
        except socket.timeout:
            r = b""
        s.close()
        good = True
        what = "no answer"
        if r:
            rcode = r[3] & 0xF
            an = struct.unpack("!H", r[6:8])[0] if len(r) >= 8 else 0
            good = rcode in (1, 3, 4, 5) and an == 0
            what = "rcode %d, %d answers" % (rcode, an)
        print("%s - dns case %d: %s" % ("ok" if good else "not ok", i, what))


if __name__ == "__main__":
    if sys.argv[1] == "http":
        http(sys.argv[2])
    else:
        dns()
