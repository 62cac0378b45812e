#!/usr/bin/env python3
"""Writes a one-layer image archive in `docker save` form from a root filesystem dir,
for engines without registry access (`ctr images import`, `docker load`).

  mkimage.py --rootfs DIR --tag NAME:TAG [--entrypoint JSON] [--cmd JSON] OUT.tar

The archive holds manifest.json (RepoTags, Config, Layers), the image config
(architecture/os of this machine, Env PATH, Entrypoint/Cmd, rootfs.diff_ids) and the
layer as an uncompressed tar of DIR (numeric owners, symlinks kept)."""
import argparse
import hashlib
import io
import json
import os
import platform
import tarfile

ARCH = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm", "ppc64le": "ppc64le",
        "s390x": "s390x", "riscv64": "riscv64"}


def layer_tar(rootfs):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for path in sorted(os.listdir(rootfs)):
            t.add(os.path.join(rootfs, path), arcname=path, recursive=True,
                  filter=lambda ti: (setattr(ti, "uname", ""), setattr(ti, "gname", ""), ti)[-1])
    return buf.getvalue()


def add_bytes(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    ti.mode = 0o644
    t.addfile(ti, io.BytesIO(data))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rootfs", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--entrypoint", type=json.loads, default=None)
    ap.add_argument("--cmd", type=json.loads, default=["sh"])
    ap.add_argument("out")
    a = ap.parse_args()

    layer = layer_tar(a.rootfs)
    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    cfg = {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
           "Cmd": a.cmd}
    if a.entrypoint is not None:
        cfg["Entrypoint"] = a.entrypoint
    config = json.dumps({
        "architecture": ARCH.get(platform.machine(), platform.machine()),
        "os": "linux",
        "created": "2000-01-01T00:00:00Z",
        "config": cfg,
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": "2000-01-01T00:00:00Z", "created_by": "mkimage.py"}],
    }, sort_keys=True).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    layer_name = diff_id[len("sha256:"):] + "/layer.tar"
    manifest = json.dumps([{"Config": config_name, "RepoTags": [a.tag],
                            "Layers": [layer_name]}]).encode()
    with tarfile.open(a.out, "w") as t:
        add_bytes(t, config_name, config)
        add_bytes(t, layer_name, layer)
        add_bytes(t, "manifest.json", manifest)


if __name__ == "__main__":
    main()
