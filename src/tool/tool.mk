# SPDX-License-Identifier: GPL-2.0
#
# Rules for the stackid command, its host tests, fuzzers and report
# benchmark; included by the top Makefile before its `unit:` rule (they
# add to UNIT_BINS and UNIT_RUNS). Uses B, CC, UCFLAGS.
#
#   make user            also builds build/stackid
#   make unit            also runs test_capture, test_report,
#                        test_symbolize, test_record, test_cfi, pprof.sh,
#                        flame-browser.js, push-test.js, test_push,
#                        pyroscope-test.js (a real Pyroscope server:
#                        STACKID_PYROSCOPE=.../start.sh, else skipped),
#                        debuginfod.sh, units.sh
#   make fuzz            fuzz_capture, fuzz_symbolize, fuzz_elfnote, fuzz_cfi,
#                        FUZZ_TIME s each (make unit: a short run)
#   make bench-report    records/s of report --format folded --no-symbols

# The command: main + command lines + the library the tests link too.
TOOL_LIB_SRCS := src/tool/bidtab.c src/tool/capdir.c src/tool/capture.c \
	src/tool/decode.c src/tool/deltas.c \
	src/tool/folded.c \
	src/tool/flame.c src/tool/pb.c src/tool/pprof.c src/tool/push.c \
	src/tool/recorder.c src/tool/rec_device.c src/tool/rec_file.c \
	src/tool/rec_stats.c src/tool/rec_replay.c src/tool/rec_unwind.c \
	src/tool/render.c src/tool/report.c src/tool/symbolize.c \
	src/tool/text.c src/tool/util.c src/tool/cfi.c src/record.c src/ring.c \
	src/elfnote.c
TOOL_SRCS := src/tool/main.c src/tool/cmd_record.c src/tool/cmd_report.c \
	src/tool/cmd_push.c src/tool/cmd_cfi.c \
	$(TOOL_LIB_SRCS)
TOOL_HDRS := $(wildcard src/tool/*.h) src/record.h src/pure.h src/abi1.h src/ring.h \
	src/elfnote.h src/delta.h src/packed.h \
	include/stackid.h $(B)/flame_js.h
# libdebuginfod: linked where its .so and header exist (Debian 12: yes).
DEBUGINFOD_SO := $(shell $(CC) -print-file-name=libdebuginfod.so)
HAVE_DEBUGINFOD := $(and $(filter /%,$(DEBUGINFOD_SO)),\
	$(wildcard /usr/include/elfutils/debuginfod.h))
TOOL_CFLAGS := $(if $(HAVE_DEBUGINFOD),-DHAVE_DEBUGINFOD) -I$(B)
TOOL_LIBS := -ldw -lelf $(if $(HAVE_DEBUGINFOD),-ldebuginfod) -lz -lcurl \
	-lstdc++

# The flame graph's script (src/tool/flame.js) as a C string.
$(B)/flame_js.h: src/tool/flame.js | $(B)
	{ echo '#define FLAME_JS \'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n" \\/' $<; \
	  echo '""'; } >$@.tmp && mv $@.tmp $@

# CPPFLAGS and LDFLAGS: what a package build adds (hardening).
$(B)/stackid: $(TOOL_SRCS) $(TOOL_HDRS) | $(B)
	$(CC) $(CPPFLAGS) $(UCFLAGS) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ \
		$(TOOL_SRCS) $(TOOL_LIBS)

# Symbolization fixtures: known function names, a non-PIE executable
# (addresses are not file offsets), a 32-bit object, and a stripped
# object whose names are only in its separate debug file.
RF := $(B)/report-fix
FIXSRC := test/unit/report/symfix.c
REPORT_FIX := $(RF)/libsymfix.so $(RF)/libsymfix32.so $(RF)/symfix \
	$(RF)/libhidden.so $(RF)/libhidden.debug $(RF)/libhidden.stripped.so \
	$(RF)/link/liblink.so $(RF)/libcxxfix.so
$(RF):
	mkdir -p $@
$(RF)/libsymfix.so: $(FIXSRC) | $(RF)
	$(CC) -O1 -g -fPIC -shared -Wl,--build-id=sha1 -o $@ $<
$(RF)/libsymfix32.so: $(FIXSRC) | $(RF)
	$(CC) -m32 -O1 -g -fPIC -shared -Wl,--build-id=sha1 -o $@ $<
$(RF)/symfix: $(FIXSRC) | $(RF)
	$(CC) -O1 -g -no-pie -DSYMFIX_MAIN -Wl,--build-id=md5 -o $@ $<
$(RF)/libhidden.so: $(FIXSRC) | $(RF)
	$(CC) -O1 -g -fPIC -shared -fvisibility=hidden \
		-Wl,--build-id=sha1 -o $@ $<
$(RF)/libhidden.debug: $(RF)/libhidden.so
	objcopy --only-keep-debug $< $@
$(RF)/libhidden.stripped.so: $(RF)/libhidden.so
	strip --strip-all -o $@ $<
# The same, found only through its .gnu_debuglink (next to it).
$(RF)/link/liblink.so: $(RF)/libhidden.so $(RF)/libhidden.debug
	mkdir -p $(RF)/link
	cp $(RF)/libhidden.debug $(RF)/link/liblink.debug
	strip --strip-all -o $@.tmp $<
	cd $(RF)/link && objcopy --add-gnu-debuglink=liblink.debug \
		liblink.so.tmp liblink.so && rm liblink.so.tmp
# C++ names to demangle.
CXX ?= g++
$(RF)/libcxxfix.so: test/unit/report/cxxfix.cc | $(RF)
	$(CXX) -O1 -g -fPIC -shared -Wl,--build-id=sha1 -o $@ $<

# The known chain (main;app_a1;app_a2;app_a3 in an executable, lib_b1;
# lib_b2;lib_spin in a library), 64-bit, built like the guest's but never
# run here: its functions' offsets (test/guest/expect.sh) make a
# synthetic capture (mkcapture chain) for the tests of pprof, the flame
# graph and debuginfod.
$(RF)/libchain.so: test/guest/progs/chain_lib.c | $(RF)
	$(CC) $(FP) -fPIC -shared -Wl,--build-id=md5 -o $@ $<
$(RF)/chain: test/guest/progs/chain_main.c $(RF)/libchain.so
	$(CC) $(FP) -fPIE -pie -Wl,--build-id=sha1 -o $@ $< -L$(RF) -lchain
$(RF)/chain.expect: $(RF)/chain $(RF)/libchain.so test/guest/expect.sh
	test/guest/expect.sh $(RF)/libchain.so lib_spin \
		$(RF)/libchain.so lib_b2 $(RF)/libchain.so lib_b1 \
		$(RF)/chain app_a3 $(RF)/chain app_a2 $(RF)/chain app_a1 \
		$(RF)/chain main >$@.tmp && mv $@.tmp $@
$(RF)/chain.cap: $(B)/mkcapture $(RF)/chain.expect
	$(B)/mkcapture chain $@ $(RF)/chain.expect $(abspath $(RF)/chain) \
		$(abspath $(RF)/libchain.so)
# Stripped copies of both, whose debug files only a debuginfod server
# has (test/unit/debuginfod.sh).
$(RF)/dbgi/chain.debug: $(RF)/chain $(RF)/libchain.so
	mkdir -p $(RF)/dbgi/serve
	for f in chain libchain.so; do \
		objcopy --only-keep-debug $(RF)/$$f $(RF)/dbgi/serve/$$f.debug && \
		strip --strip-all -o $(RF)/dbgi/$$f $(RF)/$$f || exit 1; \
	done
	touch $@
CHAIN_FIX := $(RF)/chain $(RF)/libchain.so $(RF)/chain.expect $(RF)/chain.cap \
	$(RF)/dbgi/chain.debug

# Host tests: TOP and BUILD tell them where the expected outputs, the
# fixtures and build/stackid are.
TOOL_TCFLAGS := $(UCFLAGS) $(TOOL_CFLAGS) -Itest/unit \
	-DTOP='"$(CURDIR)"' -DBUILD='"$(abspath $(B))"'
TOOL_TDEPS := $(TOOL_LIB_SRCS) $(TOOL_HDRS) test/unit/tap.h \
	test/unit/report/capgen.h
TOOL_UNIT := $(B)/test_capture $(B)/test_report $(B)/test_symbolize \
	$(B)/test_record $(B)/test_hostile $(B)/test_push $(B)/test_cfi
UNIT_BINS += $(TOOL_UNIT) $(B)/stackid $(B)/mkcapture $(CHAIN_FIX)
UNIT_RUNS += $(TOOL_UNIT) "sh test/unit/pprof.sh $(abspath $(B))" \
	"node test/unit/flame-browser.js $(abspath $(B))" \
	"node test/unit/push-test.js $(abspath $(B))" \
	"node test/unit/pyroscope-test.js $(abspath $(B))" \
	"sh test/unit/debuginfod.sh $(abspath $(B))" \
	"sh test/unit/units.sh $(abspath $(B))"

$(B)/test_capture: test/unit/test_capture.c $(TOOL_TDEPS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
$(B)/test_report: test/unit/test_report.c $(TOOL_TDEPS) $(B)/stackid \
		test/unit/report/bench.h \
		test/unit/report/demo.text test/unit/report/demo.folded \
		test/unit/report/demo-paths.folded | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
$(B)/test_symbolize: test/unit/test_symbolize.c $(TOOL_TDEPS) \
		$(REPORT_FIX) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
$(B)/test_hostile: test/unit/test_hostile.c $(TOOL_TDEPS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
$(B)/test_record: test/unit/test_record.c $(TOOL_TDEPS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
$(B)/test_push: test/unit/test_push.c $(TOOL_TDEPS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
$(B)/test_cfi: test/unit/test_cfi.c test/unit/cfigen.h $(TOOL_TDEPS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)

# Synthetic captures: demo, bench, fuzzer seeds.
$(B)/mkcapture: test/unit/mkcapture.c test/unit/report/capgen.h \
		test/unit/report/bench.h src/tool/capture.c src/tool/util.c \
		$(TOOL_HDRS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< src/tool/capture.c src/tool/util.c \
		src/record.c

# Fuzzers (libFuzzer): FUZZ_TIME seconds each, corpora kept in $(B).
CLANG ?= clang
FUZZ_TIME ?= 60
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Iinclude -Isrc
$(B)/fuzz_capture: test/fuzz/fuzz_capture.c $(TOOL_LIB_SRCS) $(TOOL_HDRS) | $(B)
	$(CLANG) $(FUZZ_CFLAGS) $(TOOL_CFLAGS) -o $@ $< $(TOOL_LIB_SRCS) \
		$(TOOL_LIBS)
$(B)/fuzz_symbolize: test/fuzz/fuzz_symbolize.c $(TOOL_LIB_SRCS) $(TOOL_HDRS) \
		| $(B)
	$(CLANG) $(FUZZ_CFLAGS) $(TOOL_CFLAGS) -o $@ $< $(TOOL_LIB_SRCS) \
		$(TOOL_LIBS)
# A short run of the capture, symbolizer and cfi fuzzers in `make unit`
# (FUZZ_SHORT s each, from test/fuzz/corpus; test/fuzz/short.sh).
UNIT_BINS += $(B)/fuzz_capture $(B)/fuzz_symbolize $(B)/fuzz_cfi
UNIT_RUNS += "sh test/fuzz/short.sh $(abspath $(B))"
# The unwind table compiler alone (cfi.c and the note parser).
$(B)/fuzz_cfi: test/fuzz/fuzz_cfi.c src/tool/cfi.c src/tool/cfi.h \
		src/elfnote.c src/elfnote.h src/pure.h include/stackid.h | $(B)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< src/tool/cfi.c src/elfnote.c
$(B)/fuzz_elfnote: test/fuzz/fuzz_elfnote.c src/elfnote.c src/elfnote.h \
		src/pure.h | $(B)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< src/elfnote.c

.PHONY: fuzz bench-report
fuzz: $(B)/fuzz_capture $(B)/fuzz_symbolize $(B)/fuzz_elfnote $(B)/fuzz_cfi \
		$(B)/mkcapture
	mkdir -p $(B)/capture-corpus $(B)/capture-seeds \
		$(B)/symbolize-corpus $(B)/elfnote-corpus $(B)/elfnote-seeds \
		$(B)/cfi-corpus
	$(B)/fuzz_cfi -max_total_time=$(FUZZ_TIME) -max_len=4096 \
		-use_value_profile=1 $(B)/cfi-corpus test/fuzz/corpus/cfi
	$(B)/mkcapture seeds $(B)/capture-seeds
	$(B)/fuzz_capture -max_total_time=$(FUZZ_TIME) -max_len=16384 \
		-use_value_profile=1 $(B)/capture-corpus $(B)/capture-seeds \
		test/fuzz/corpus/capture
	$(B)/fuzz_symbolize -max_total_time=$(FUZZ_TIME) -max_len=4096 \
		-use_value_profile=1 $(B)/symbolize-corpus \
		test/fuzz/corpus/symbolize
	sh test/unit/elfnote-fixtures.sh $(B)/elfnote-fixtures | \
	while read -r f hex; do \
		head -c 1024 "$$f" >"$(B)/elfnote-seeds/$$(basename "$$f")"; \
	done
	$(B)/fuzz_elfnote -max_total_time=$(FUZZ_TIME) -max_len=4096 \
		-use_value_profile=1 $(B)/elfnote-corpus $(B)/elfnote-seeds

# Benchmark: a synthetic capture in a busy host's shape (report/bench.h)
# of BENCH_SAMPLES samples of BENCH_DEPTH user frames from BENCH_STACKS
# distinct call paths (0: all distinct), reported in-process and by
# build/stackid on one CPU (BENCH_CPU), median of BENCH_REPS runs; ends
# with "report folded --no-symbols: N records/s (one core)". A figure,
# not a test: not in `make unit`.
BENCH_SAMPLES ?= 3000000
BENCH_DEPTH ?= 11
BENCH_STACKS ?= 400
$(B)/bench_report: test/unit/bench_report.c test/unit/report/bench.h \
		$(TOOL_TDEPS) | $(B)
	$(CC) $(TOOL_TCFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS)
bench-report: $(B)/bench_report $(B)/stackid
	$(B)/bench_report $(BENCH_SAMPLES) $(BENCH_DEPTH) $(BENCH_STACKS) \
		$(B)/stackid
