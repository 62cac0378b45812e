#!/bin/sh
# `make check`'s short fuzz run: every target for FUZZ_CHECK_SECONDS (default 15) under
# ASan/UBSan, as TAP; skipped with its reason where clang cannot build libFuzzer targets.
exec "$(dirname "$0")/run.sh" --tap -t "${FUZZ_CHECK_SECONDS:-15}"
