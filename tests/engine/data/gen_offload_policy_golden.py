#!/usr/bin/env python3
"""Generates offload_policy_golden.json: fixed random operation sequences run through vLLM's
own CPUOffloadingManager (v1/kv_offload/cpu/manager.py) with its LRU and ARC cache policies
(cpu/policies/lru.py, arc.py) and store_threshold, at upstream commit 8d9b52f7.

Nothing of vLLM is copied into this repository: the script reads the upstream sources out of
a vLLM git checkout (or bare mirror) with `git show`, execs them as their real module names,
and shims only the imports they need that are not part of the policy logic (typing_extensions,
the logger, the stats payload, the base types). tests/engine/offload_policy_golden_test.cpp
replays every step through the C++ manager and compares the results and the policy's lists.

    python3 tests/engine/data/gen_offload_policy_golden.py [VLLM_GIT_DIR] > \
        tests/engine/data/offload_policy_golden.json
"""
import dataclasses
import enum
import json
import logging
import random
import subprocess
import sys
import types

COMMIT = "8d9b52f7"
SOURCES = {
    "vllm.v1.kv_offload.cpu.policies.base": "vllm/v1/kv_offload/cpu/policies/base.py",
    "vllm.v1.kv_offload.cpu.policies.lru": "vllm/v1/kv_offload/cpu/policies/lru.py",
    "vllm.v1.kv_offload.cpu.policies.arc": "vllm/v1/kv_offload/cpu/policies/arc.py",
    "vllm.v1.kv_offload.cpu.policies.factory": "vllm/v1/kv_offload/cpu/policies/factory.py",
    "vllm.v1.kv_offload.cpu.manager": "vllm/v1/kv_offload/cpu/manager.py",
}


def module(name):
    """The module `name`, created (with its parent packages) if missing."""
    if name in sys.modules:
        return sys.modules[name]
    m = types.ModuleType(name)
    m.__path__ = []  # a package, so submodules import
    sys.modules[name] = m
    if "." in name:
        parent, _, leaf = name.rpartition(".")
        setattr(module(parent), leaf, m)
    return m


def install_shims():
    module("typing_extensions").override = lambda f: f
    module("vllm.logger").init_logger = logging.getLogger

    base = module("vllm.v1.kv_offload.base")

    class LookupResult(enum.Enum):
        MISS = 0
        HIT = 1
        HIT_PENDING = 2
        RETRY = 3

    class Medium(enum.Enum):
        CPU = 0

    @dataclasses.dataclass
    class OffloadingEvent:
        keys: list
        medium: object
        removed: bool

    @dataclasses.dataclass
    class PrepareStoreOutput:
        keys_to_store: list
        store_spec: object
        evicted_keys: list

    class OffloadingManager:
        pass

    class RequestOffloadingContext:
        pass

    base.OffloadKey = object
    base.ReqContext = object
    base.LoadStoreSpec = object
    base.LookupResult = LookupResult
    base.Medium = Medium
    base.OffloadingEvent = OffloadingEvent
    base.PrepareStoreOutput = PrepareStoreOutput
    base.OffloadingManager = OffloadingManager
    base.RequestOffloadingContext = RequestOffloadingContext

    common = module("vllm.v1.kv_offload.cpu.common")

    class CPULoadStoreSpec:
        def __init__(self, block_ids):
            self.block_ids = list(block_ids)

    class CPUOffloadingMetrics:
        CPU_CACHE_USAGE_PERC = "cpu_cache_usage_perc"
        CPU_CACHE_WRITE_USAGE_PERC = "cpu_cache_write_usage_perc"
        CPU_CACHE_READ_USAGE_PERC = "cpu_cache_read_usage_perc"
        CPU_ALLOCATION_SIZE = "cpu_allocation_size"
        STORES_SKIPPED = "stores_skipped"

    common.CPULoadStoreSpec = CPULoadStoreSpec
    common.CPUOffloadingMetrics = CPUOffloadingMetrics

    metrics = module("vllm.distributed.kv_transfer.kv_connector.v1.offloading.metrics")

    class OffloadingConnectorStats:
        def __init__(self):
            self.values = {}

        def set_gauge(self, name, value):
            self.values[name] = value

        def observe_histogram(self, name, value):
            self.values.setdefault(name, []).append(value)

        def increase_counter(self, name, value=1):
            self.values[name] = self.values.get(name, 0) + value

    metrics.OffloadingConnectorStats = OffloadingConnectorStats


def load_upstream(git_dir):
    for name, path in SOURCES.items():
        src = subprocess.run(
            ["git", "-C", git_dir, "show", f"{COMMIT}:{path}"],
            check=True, capture_output=True, text=True).stdout
        m = module(name)
        m.__file__ = f"{COMMIT}:{path}"
        exec(compile(src, m.__file__, "exec"), m.__dict__)
    return sys.modules["vllm.v1.kv_offload.cpu.manager"].CPUOffloadingManager


def policy_state(policy):
    if hasattr(policy, "t1"):  # ARCCachePolicy
        return {"t1": list(policy.t1), "t2": list(policy.t2), "b1": list(policy.b1),
                "b2": list(policy.b2), "target_t1_size": float(policy.target_t1_size)}
    return {"evictable": list(policy.evictable_blocks)}  # LRUCachePolicy


def blocks_state(policy):
    if hasattr(policy, "t1"):
        items = list(policy.t1.items()) + list(policy.t2.items())
    else:
        items = list(policy.blocks.items())
    return sorted([k, b.ref_cnt, b.block_id] for k, b in items)


def run_case(manager_cls, name, policy, capacity, store_threshold, max_tracker_size,
             num_keys, num_ops, seed):
    rng = random.Random(seed)
    mgr = manager_cls(num_blocks=capacity, cache_policy=policy,
                      store_threshold=store_threshold, max_tracker_size=max_tracker_size)
    pending, pinned = [], []  # stores in flight; one entry per load pin
    steps = []

    def pick(pool, lo, hi):
        return rng.sample(pool, min(len(pool), rng.randint(lo, hi)))

    for _ in range(num_ops):
        ready = [k for k in range(num_keys)
                 if (b := mgr._policy.get(k)) is not None and b.is_ready]
        choices = ["lookup"] * 5 + ["touch"] * 3 + ["prepare_store"] * 4 + ["stats"]
        if pending:
            choices += ["complete_store"] * (3 + len(pending))
        if ready and len(pinned) < 3:
            choices += ["prepare_load"] * 2
        if pinned:
            choices += ["complete_load"] * (2 + len(pinned))
        op = rng.choice(choices)
        step = {"op": op}
        if op == "lookup":
            k = rng.randrange(num_keys)
            step["keys"] = [k]
            step["result"] = mgr.lookup(k, None).name
        elif op == "touch":
            step["keys"] = pick(list(range(num_keys)), 1, 6)
            mgr.touch(step["keys"], None)
        elif op == "prepare_store":
            keys = pick(list(range(num_keys)), 1, max(2, capacity - 2))
            step["keys"] = keys
            out = mgr.prepare_store(keys, None)
            if out is None:
                step["result"] = None
            else:
                step["result"] = {"keys_to_store": list(out.keys_to_store),
                                  "block_ids": list(out.store_spec.block_ids),
                                  "evicted_keys": list(out.evicted_keys)}
                pending += list(out.keys_to_store)
        elif op == "complete_store":
            keys = pick(pending, 1, 4)
            for k in keys:
                pending.remove(k)
            step["keys"] = keys
            mgr.complete_store(keys, None)
        elif op == "prepare_load":
            keys = pick(ready, 1, 2)
            step["keys"] = keys
            mgr.prepare_load(keys, None)
            pinned += keys
        elif op == "complete_load":
            keys = list(dict.fromkeys(pick(pinned, 1, 3)))
            for k in keys:
                pinned.remove(k)
            step["keys"] = keys
            mgr.complete_load(keys, None)
        else:
            stats = mgr.get_stats().values
            step["result"] = {
                "usage": stats["cpu_cache_usage_perc"],
                "write_usage": stats["cpu_cache_write_usage_perc"],
                "read_usage": stats["cpu_cache_read_usage_perc"],
                "allocation_sizes": stats.get("cpu_allocation_size", []),
                "stores_skipped": stats.get("stores_skipped"),
            }
        step["policy"] = policy_state(mgr._policy)
        step["blocks"] = blocks_state(mgr._policy)
        if mgr.counts is not None:
            step["counts"] = [[k, v] for k, v in mgr.counts.items()]
        steps.append(step)
    return {"name": name, "eviction_policy": policy, "num_blocks": capacity,
            "store_threshold": store_threshold, "max_tracker_size": max_tracker_size,
            "steps": steps}


def main():
    git_dir = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/hmellor+vllm/repo"
    install_shims()
    manager_cls = load_upstream(git_dir)
    cases = [
        ("lru", "lru", 6, 0, 64000, 16, 400, 11),
        ("arc", "arc", 6, 0, 64000, 16, 400, 12),
        ("arc-small", "arc", 3, 0, 64000, 10, 400, 13),
        ("arc-threshold2", "arc", 5, 2, 64000, 14, 400, 14),
        ("lru-threshold3-tracker8", "lru", 5, 3, 8, 14, 400, 15),
        ("arc-threshold2-tracker6", "arc", 4, 2, 6, 12, 400, 16),
    ]
    golden = {
        "generator": "tests/engine/data/gen_offload_policy_golden.py",
        "upstream": f"vllm@{COMMIT} v1/kv_offload/cpu/manager.py, cpu/policies/{{lru,arc}}.py",
        "cases": [run_case(manager_cls, *c) for c in cases],
    }
    json.dump(golden, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
