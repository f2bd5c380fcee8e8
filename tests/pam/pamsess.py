#!/usr/bin/python3
# pamsess.py SERVICE USER [CMD]: a minimal PAM application (like sshd or
# su, without authentication): pam_start, set PAM_RHOST and PAM_TTY,
# pam_open_session, print the session record pam_aisb wrote, run CMD as
# USER in a child (as the login's processes would), pam_close_session.
# Prints "open RC", "record LINE"..., "out LINE"..., "close RC", and
# whether the record and its directory are left after the close.
import ctypes, os, pwd, subprocess, sys

PAM_TTY, PAM_RHOST = 3, 4
service, user = sys.argv[1], sys.argv[2]
cmd = sys.argv[3] if len(sys.argv) > 3 else None

pam = ctypes.CDLL("libpam.so.0")
CONV = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                        ctypes.c_void_p, ctypes.c_void_p)

class Conv(ctypes.Structure):
    _fields_ = [("conv", CONV), ("appdata_ptr", ctypes.c_void_p)]

conv_cb = CONV(lambda n, m, r, d: 19)      # PAM_CONV_ERR: no prompts here
conv = Conv(conv_cb, None)
h = ctypes.c_void_p()
pam.pam_set_item.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
rc = pam.pam_start(service.encode(), user.encode(), ctypes.byref(conv),
                   ctypes.byref(h))
if rc != 0:
    print("start", rc); sys.exit(1)
pam.pam_set_item(h, PAM_RHOST, b"198.51.100.7")
pam.pam_set_item(h, PAM_TTY, b"/dev/pts/99")
rc = pam.pam_open_session(h, 0)
print("open", rc, flush=True)
rec = "/run/aisb/%s/session-%d" % (user, os.getpid())
if os.path.exists(rec):
    st = os.stat(rec)
    print("record-mode %o %d:%d" % (st.st_mode & 0o7777, st.st_uid, st.st_gid))
    for line in open(rec):
        print("record", line.rstrip("\n"))
if cmd:
    pw = pwd.getpwnam(user)
    def drop():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    out = subprocess.run(["/bin/sh", "-c", cmd], preexec_fn=drop, cwd="/",
                         stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        print("out", line)
sys.stdout.flush()
rc2 = pam.pam_close_session(h, 0) if rc == 0 else -1
print("close", rc2)
print("after-record", "yes" if os.path.exists(rec) else "no")
print("after-dir", "yes" if os.path.exists(os.path.dirname(rec)) else "no")
pam.pam_end(h, 0)
