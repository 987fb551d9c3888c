import os as o, sys as s
from subprocess import (
    run as r,
    call
)
r(["id"]); call("id"); o.popen("x")
