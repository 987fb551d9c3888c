# SPDX-License-Identifier: MIT
"""--gpus auto (src/fit/gpu_detect.c) against stand-ins for each source.

1. NVML: tests/fakes/fake_nvml.c built as libnvidia-ml.so.1, its devices
   from FAKE_NVML_DEVICES.
2. nvidia-smi: shell scripts that print what nvidia-smi prints for
   `--query-gpu=index,name,memory.total,memory.free,compute_cap
   --format=csv,noheader,nounits` (MiB, no units), or refuse compute_cap
   as drivers before 510 do, or fail, hang, or print garbage.
3. AMD sysfs: a tree like /sys/class/drm with an Intel iGPU, an AMD card
   and a connector entry.

The expected numbers are worked by hand: total = MiB << 20, usable = free
minus the 300 MiB CUDA context (gpu_detect.h), and the profile a name
stands for (rules/gpus.def). A run must fit the model on the devices
found, and the fit's -ts split (by free memory, as llama.cpp's) must give
the device with more free memory more layers.
"""
import json
import os
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import env_path  # noqa: E402

MIB = 1 << 20
CONTEXT = 300 * MIB
OFF = {"QA_NVML_LIB": "off", "QA_NVIDIA_SMI": "off", "QA_SYSFS_ROOT": "off"}


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}")


def fit(binary, model, env_over, extra=()):
    env = dict(os.environ)
    env.update(OFF)
    env.update(env_over)
    t0 = time.monotonic()
    p = subprocess.run([binary, "fit", "-f", "json", "--gpus", "auto",
                        "--ctx", "8192", *extra, model], capture_output=True, env=env,
                       timeout=60)
    took = time.monotonic() - t0
    out = p.stdout.decode()
    doc = None
    if out.strip():
        doc = json.loads(out)
        doc = doc["inputs"][0] if "inputs" in doc else doc
    return p.returncode, doc, p.stderr.decode(), took


def script(folder, name, body):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def devices(doc):
    return (doc or {}).get("fit", {}).get("devices", [])


def check_devices(c, what, doc, want):
    got = devices(doc)
    c.check(len(got) == len(want),
            f"{what}: {len(got)} devices, want {len(want)}")
    for d, (name, total_mib, free_mib) in zip(got, want):
        c.check(d["name"] == name, f"{what}: device name {d['name']}, "
                f"want {name}")
        c.check(d["vram_bytes"] == total_mib * MIB,
                f"{what}: {name} total {d['vram_bytes']}, want "
                f"{total_mib * MIB}")
        c.check(d["usable_bytes"] == free_mib * MIB - CONTEXT,
                f"{what}: {name} usable {d['usable_bytes']}, want "
                f"{free_mib * MIB - CONTEXT} (free less the context)")


def main():
    binary = os.path.abspath(sys.argv[1])
    nvml = os.path.abspath(sys.argv[2])
    fx = env_path("QA_FIXTURES")
    model = os.path.join(fx, "fit", "llama-3.1-8b-Q4_K_M.gguf")
    c = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        # 1. NVML: an H100 (its profile by the leading word) and an
        # unknown card (named by its size)
        code, doc, err, _ = fit(binary, model, {
            "QA_NVML_LIB": nvml,
            "FAKE_NVML_DEVICES": "NVIDIA H100 80GB HBM3:81559:81000:9.0;"
                                 "Mystery Card X:24576:20000:8.9"})
        c.check(code == 0, f"NVML: exit {code}: {err}")
        check_devices(c, "NVML", doc, [("h100-sxm", 81559, 81000),
                                       ("24.0GiB", 24576, 20000)])
        c.check("--gpus auto (NVML): GPU0 NVIDIA H100 80GB HBM3, 81559 MiB"
                ", 81000 MiB free; 80700 MiB usable" in err,
                f"NVML: stderr names what was found: {err}")
        # NVML present but no driver: falls through to the next source
        smi_dir = os.path.join(tmp, "smi")
        os.makedirs(smi_dir)
        good = script(smi_dir, "nvidia-smi-good",
                      'case "$1" in *compute_cap*) ;; *) exit 2;; esac\n'
                      'echo "0, NVIDIA GeForce RTX 5060 Ti, 16311, 15751,'
                      ' 12.0"\n'
                      'echo "1, NVIDIA GeForce RTX 5060 Ti, 16311, 9000,'
                      ' 12.0"\n')
        code, doc, err, _ = fit(binary, model, {
            "QA_NVML_LIB": nvml, "FAKE_NVML_FAIL_INIT": "1",
            "QA_NVIDIA_SMI": good})
        c.check(code == 0, f"nvidia-smi: exit {code}: {err}")
        check_devices(c, "nvidia-smi", doc,
                      [("rtx-5060-ti", 16311, 15751),
                       ("rtx-5060-ti", 16311, 9000)])
        d = devices(doc)
        if len(d) == 2:
            n0 = d[0]["layers"][1] - d[0]["layers"][0] + 1
            n1 = d[1]["layers"][1] - d[1]["layers"][0] + 1
            c.check(n0 > n1, f"nvidia-smi: the device with more free "
                    f"memory gets more layers ({n0} vs {n1})")
        # a driver before 510 refuses compute_cap: asked again without
        old = script(smi_dir, "nvidia-smi-old",
                     'case "$1" in *compute_cap*) echo "Field '
                     '\\"compute_cap\\" is not a valid field" >&2; exit 2;;'
                     ' esac\necho "0, NVIDIA GeForce RTX 3090, 24576, '
                     '23000"\n')
        code, doc, err, _ = fit(binary, model, {"QA_NVIDIA_SMI": old})
        c.check(code == 0, f"old nvidia-smi: exit {code}: {err}")
        check_devices(c, "old nvidia-smi", doc,
                      [("rtx-3090", 24576, 23000)])
        # failures: each a one-line reason, exit 2, no device made up
        for name, body, words in (
                ("garbage", 'echo "0, GPU, lots, 1, 9.0"\n',
                 "is not 'index, name, MiB total, MiB free'"),
                ("free-above-total", 'echo "0, GPU, 100, 200, 9.0"\n',
                 "is not 'index, name"),
                ("no-driver", 'echo "NVIDIA-SMI has failed because it '
                 'could not communicate with the NVIDIA driver"\nexit 9\n',
                 "nvidia-smi failed (exit 9)"),
                ("hang", "sleep 60\n", "gave no answer in 10 s")):
            prog = script(smi_dir, "nvidia-smi-" + name, body)
            code, doc, err, took = fit(binary, model,
                                       {"QA_NVIDIA_SMI": prog})
            c.check(code == 2 and words in err and err.count("\n") <= 2,
                    f"nvidia-smi {name}: exit {code}, stderr {err!r}")
            if name == "hang":
                c.check(took < 20, f"nvidia-smi hang: the run took "
                        f"{took:.1f} s (bound 10 s)")
        # 3. AMD sysfs
        root = os.path.join(tmp, "sys")
        drm = os.path.join(root, "class", "drm")
        for card, files in (
                ("card0", {"vendor": "0x8086\n"}),
                ("card1", {"vendor": "0x1002\n",
                           "mem_info_vram_total": f"{24560 * MIB}\n",
                           "mem_info_vram_used": f"{1024 * MIB}\n",
                           "product_name": "AMD Radeon RX 7900 XTX\n"}),
                ("card1-DP-1", {"vendor": "0x1002\n"})):
            dev = os.path.join(drm, card, "device")
            os.makedirs(dev)
            for k, v in files.items():
                with open(os.path.join(dev, k), "w") as f:
                    f.write(v)
        code, doc, err, _ = fit(binary, model, {"QA_SYSFS_ROOT": root})
        c.check(code == 0, f"sysfs: exit {code}: {err}")
        check_devices(c, "sysfs", doc, [("24.0GiB", 24560, 24560 - 1024)])
        c.check("GPU0 AMD Radeon RX 7900 XTX" in err,
                f"sysfs: stderr names the card: {err}")
        # nothing anywhere
        code, doc, err, _ = fit(binary, model, {})
        c.check(code == 2 and "auto found no GPU" in err and
                "--gpus 2x16G" in err,
                f"no GPU: exit {code}, stderr {err!r}")
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
