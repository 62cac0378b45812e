#!/usr/bin/env python3
"""A small Kubernetes CRI (runtime.v1) client for tests/cri.bats, on python3-grpcio.

The messages are encoded by hand (protobuf wire format) from the field numbers of the
published CRI v1 API definition (k8s.io/cri-api, pkg/apis/runtime/v1/api.proto); only
the messages and fields the tests use are described in SCHEMA below.  Requests and
replies are JSON on the command line and stdout, with the proto's field names.

  cri.py -s SOCKET CALL [JSON]    RuntimeService/ImageService CALL, e.g.
    cri.py -s S RunPodSandbox '{"config": {...}}'      prints the reply as JSON
Failures print the gRPC status and message on stderr and exit 1."""
import argparse
import json
import struct
import sys

import grpc

# message name -> {field name: (number, type)}; a type is a scalar ("string", "bytes",
# "int64", "int32", "uint32", "uint64", "bool", "enum"), "map" (map<string, string>),
# another message's name, or ["repeated", TYPE].
SCHEMA = {
    "VersionRequest": {"version": (1, "string")},
    "VersionResponse": {"version": (1, "string"), "runtime_name": (2, "string"),
                        "runtime_version": (3, "string"), "runtime_api_version": (4, "string")},
    "NamespaceOption": {"network": (1, "enum"), "pid": (2, "enum"), "ipc": (3, "enum")},
    "LinuxSandboxSecurityContext": {"namespace_options": (1, "NamespaceOption")},
    "LinuxPodSandboxConfig": {"cgroup_parent": (1, "string"),
                              "security_context": (2, "LinuxSandboxSecurityContext")},
    "PodSandboxMetadata": {"name": (1, "string"), "uid": (2, "string"),
                           "namespace": (3, "string"), "attempt": (4, "uint32")},
    "PodSandboxConfig": {"metadata": (1, "PodSandboxMetadata"), "hostname": (2, "string"),
                         "log_directory": (3, "string"), "labels": (6, "map"),
                         "annotations": (7, "map"), "linux": (8, "LinuxPodSandboxConfig")},
    "RunPodSandboxRequest": {"config": (1, "PodSandboxConfig"), "runtime_handler": (2, "string")},
    "RunPodSandboxResponse": {"pod_sandbox_id": (1, "string")},
    "StopPodSandboxRequest": {"pod_sandbox_id": (1, "string")},
    "StopPodSandboxResponse": {},
    "RemovePodSandboxRequest": {"pod_sandbox_id": (1, "string")},
    "RemovePodSandboxResponse": {},
    "PodSandboxStatusRequest": {"pod_sandbox_id": (1, "string"), "verbose": (2, "bool")},
    "PodSandboxStatus": {"id": (1, "string"), "metadata": (2, "PodSandboxMetadata"),
                         "state": (3, "enum"), "created_at": (4, "int64")},
    "PodSandboxStatusResponse": {"status": (1, "PodSandboxStatus")},
    "ImageSpec": {"image": (1, "string")},
    "KeyValue": {"key": (1, "string"), "value": (2, "string")},
    "LinuxContainerResources": {"cpu_period": (1, "int64"), "cpu_quota": (2, "int64"),
                                "cpu_shares": (3, "int64"), "memory_limit_in_bytes": (4, "int64"),
                                "oom_score_adj": (5, "int64"), "cpuset_cpus": (6, "string"),
                                "cpuset_mems": (7, "string"),
                                "memory_swap_limit_in_bytes": (10, "int64")},
    "LinuxContainerConfig": {"resources": (1, "LinuxContainerResources")},
    "ContainerMetadata": {"name": (1, "string"), "attempt": (2, "uint32")},
    "ContainerConfig": {"metadata": (1, "ContainerMetadata"), "image": (2, "ImageSpec"),
                        "command": (3, ["repeated", "string"]), "args": (4, ["repeated", "string"]),
                        "working_dir": (5, "string"), "envs": (6, ["repeated", "KeyValue"]),
                        "labels": (9, "map"), "annotations": (10, "map"), "log_path": (11, "string"),
                        "stdin": (12, "bool"), "tty": (14, "bool"),
                        "linux": (15, "LinuxContainerConfig")},
    "CreateContainerRequest": {"pod_sandbox_id": (1, "string"), "config": (2, "ContainerConfig"),
                               "sandbox_config": (3, "PodSandboxConfig")},
    "CreateContainerResponse": {"container_id": (1, "string")},
    "StartContainerRequest": {"container_id": (1, "string")},
    "StartContainerResponse": {},
    "StopContainerRequest": {"container_id": (1, "string"), "timeout": (2, "int64")},
    "StopContainerResponse": {},
    "RemoveContainerRequest": {"container_id": (1, "string")},
    "RemoveContainerResponse": {},
    "ContainerStatusRequest": {"container_id": (1, "string"), "verbose": (2, "bool")},
    "ContainerStatus": {"id": (1, "string"), "metadata": (2, "ContainerMetadata"),
                        "state": (3, "enum"), "created_at": (4, "int64"), "started_at": (5, "int64"),
                        "finished_at": (6, "int64"), "exit_code": (7, "int32"),
                        "image": (8, "ImageSpec"), "image_ref": (9, "string"),
                        "reason": (10, "string"), "message": (11, "string"),
                        "log_path": (15, "string"), "resources": (16, "ContainerResources")},
    "ContainerResources": {"linux": (1, "LinuxContainerResources")},
    "ContainerStatusResponse": {"status": (1, "ContainerStatus"), "info": (2, "map")},
    "UpdateContainerResourcesRequest": {"container_id": (1, "string"),
                                        "linux": (2, "LinuxContainerResources")},
    "UpdateContainerResourcesResponse": {},
    "ExecSyncRequest": {"container_id": (1, "string"), "cmd": (2, ["repeated", "string"]),
                        "timeout": (3, "int64")},
    "ExecSyncResponse": {"stdout": (1, "string"), "stderr": (2, "string"), "exit_code": (3, "int32")},
    "ContainerStatsRequest": {"container_id": (1, "string")},
    "UInt64Value": {"value": (1, "uint64")},
    "CpuUsage": {"timestamp": (1, "int64"), "usage_core_nano_seconds": (2, "UInt64Value")},
    "MemoryUsage": {"timestamp": (1, "int64"), "working_set_bytes": (2, "UInt64Value"),
                    "available_bytes": (3, "UInt64Value"), "usage_bytes": (4, "UInt64Value"),
                    "rss_bytes": (5, "UInt64Value")},
    "ContainerAttributes": {"id": (1, "string"), "metadata": (2, "ContainerMetadata")},
    "ContainerStats": {"attributes": (1, "ContainerAttributes"), "cpu": (2, "CpuUsage"),
                       "memory": (3, "MemoryUsage")},
    "ContainerStatsResponse": {"stats": (1, "ContainerStats")},
    "ImageStatusRequest": {"image": (1, "ImageSpec"), "verbose": (2, "bool")},
    "Image": {"id": (1, "string"), "repo_tags": (2, ["repeated", "string"]), "size": (4, "uint64")},
    "ImageStatusResponse": {"image": (1, "Image")},
}

# CALL -> (service, request message, reply message)
CALLS = {name: ("RuntimeService", name + "Request", name + "Response") for name in (
    "Version", "RunPodSandbox", "StopPodSandbox", "RemovePodSandbox", "PodSandboxStatus",
    "CreateContainer", "StartContainer", "StopContainer", "RemoveContainer", "ContainerStatus",
    "UpdateContainerResources", "ExecSync", "ContainerStats")}
CALLS["ImageStatus"] = ("ImageService", "ImageStatusRequest", "ImageStatusResponse")

# The enums the tests name (NamespaceMode, ContainerState, PodSandboxState).
ENUMS = {"POD": 0, "CONTAINER": 1, "NODE": 2, "TARGET": 3}

VARINT, I64, LEN, I32 = 0, 1, 2, 5


def varint(n):
    n &= (1 << 64) - 1  # negative int64/int32 values: ten bytes, two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wire):
    return varint(num << 3 | wire)


def encode_value(num, typ, value):
    if typ in ("string", "bytes"):
        data = value.encode() if isinstance(value, str) else bytes(value)
        return key(num, LEN) + varint(len(data)) + data
    if typ == "bool":
        return key(num, VARINT) + varint(1 if value else 0)
    if typ == "enum":
        return key(num, VARINT) + varint(ENUMS[value] if isinstance(value, str) else value)
    if typ in ("int64", "int32", "uint32", "uint64"):
        return key(num, VARINT) + varint(int(value))
    if typ == "map":
        return b"".join(encode_value(num, "MapEntry", {"key": k, "value": v})
                        for k, v in value.items())
    data = encode(typ, value)
    return key(num, LEN) + varint(len(data)) + data


def encode(msg, obj):
    fields = SCHEMA.get(msg, {"key": (1, "string"), "value": (2, "string")})  # MapEntry
    out = bytearray()
    for name, value in obj.items():
        if name not in fields:
            raise SystemExit("cri.py: %s has no field %r in this client" % (msg, name))
        num, typ = fields[name]
        if isinstance(typ, list):
            for v in value:
                out += encode_value(num, typ[1], v)
        else:
            out += encode_value(num, typ, value)
    return bytes(out)


def read_varint(buf, i):
    n = shift = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def signed(n, bits):
    return n - (1 << bits) if n >> (bits - 1) else n


def decode(msg, buf):
    fields = {num: (name, typ) for name, (num, typ) in
              SCHEMA.get(msg, {"key": (1, "string"), "value": (2, "string")}).items()}
    obj = {}
    i = 0
    while i < len(buf):
        k, i = read_varint(buf, i)
        num, wire = k >> 3, k & 7
        if wire == VARINT:
            raw, i = read_varint(buf, i)
        elif wire == I64:
            raw, i = struct.unpack_from("<Q", buf, i)[0], i + 8
        elif wire == I32:
            raw, i = struct.unpack_from("<I", buf, i)[0], i + 4
        elif wire == LEN:
            n, i = read_varint(buf, i)
            raw, i = buf[i:i + n], i + n
        else:
            raise SystemExit("cri.py: %s: unsupported wire type %d" % (msg, wire))
        if num not in fields:
            continue  # a field this client does not describe
        name, typ = fields[num]
        repeated = isinstance(typ, list)
        if repeated:
            typ = typ[1]
        if typ == "string":
            value = bytes(raw).decode(errors="replace")
        elif typ == "bytes":
            value = bytes(raw).hex()
        elif typ == "bool":
            value = bool(raw)
        elif typ in ("int64", "int32"):
            value = signed(raw, 64)
        elif typ in ("uint32", "uint64", "enum"):
            value = raw
        elif typ == "map":
            entry = decode("MapEntry", raw)
            obj.setdefault(name, {})[entry.get("key", "")] = entry.get("value", "")
            continue
        else:
            value = decode(typ, raw)
        if repeated:
            obj.setdefault(name, []).append(value)
        else:
            obj[name] = value
    return obj


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-s", "--socket", required=True)
    ap.add_argument("-t", "--timeout", type=float, default=60)
    ap.add_argument("call", choices=sorted(CALLS))
    ap.add_argument("request", nargs="?", default="{}")
    a = ap.parse_args()
    service, req_msg, rep_msg = CALLS[a.call]
    with grpc.insecure_channel("unix://" + a.socket) as ch:
        rpc = ch.unary_unary("/runtime.v1.%s/%s" % (service, a.call))
        try:
            reply = rpc(encode(req_msg, json.loads(a.request)), timeout=a.timeout)
        except grpc.RpcError as e:
            print("cri.py: %s: %s: %s" % (a.call, e.code().name, e.details()), file=sys.stderr)
            return 1
    print(json.dumps(decode(rep_msg, reply), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
