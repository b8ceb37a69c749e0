// SPDX-License-Identifier: GPL-2.0
/*
 * pyroscope-test.js BUILD: `stackid push` against a real Grafana Pyroscope
 * server, which this script starts on 127.0.0.1 (free ports; nothing is
 * sent anywhere else) from STACKID_PYROSCOPE, the start.sh of
 * shared/backends/pyroscope/ (README.md there): the binary is unpacked
 * once into BUILD/pyroscope-bin, each run has its own data directory.
 * Without STACKID_PYROSCOPE: one skipped test, and says so.
 *
 * What the server stored is read back through its HTTP API, both the
 * merged profile (SelectMergeProfile: its stacks, exactly) and the flame
 * graph (SelectMergeStacktraces), and compared, name by name and value by
 * value (count x period ns), with `stackid report --format folded` of the
 * same capture: the known chain with symbols and without, a capture of
 * hostile names spread over 10 s (one point per second: each second's
 * window holds its samples), 10,000 threads (one series). Last, because
 * it fills the tenant's series limit: a capture of 10,000 series is
 * refused with 429 and spooled, and neither it nor a refused (400) spool
 * item delays an acceptable capture pushed after it. TAP on stdout.
 */
"use strict";
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");
const http = require("http");
const { spawn, execFileSync } = require("child_process");

const build = path.resolve(process.argv[2] || "build");
const stackid = path.join(build, "stackid");
const mkcapture = path.join(build, "mkcapture");
const chainCap = path.join(build, "report-fix/chain.cap");
const CHAIN_WALL = 1767225600n;		// mkcapture.c: 2026-01-01
const PERIOD = Math.floor(1e9 / 99);	// ns per sample at 99 Hz
const TYPE = "process_cpu:cpu:nanoseconds:cpu:nanoseconds";
let n = 0, failed = 0, server = null;
function ok(cond, what) {
	n++;
	if (!cond) failed++;
	console.log(`${cond ? "" : "not "}ok ${n} - ${what}`);
	return cond;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function portFree(port) {
	return new Promise((resolve) => {
		const s = net.createServer();
		s.once("error", () => resolve(false));
		s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
	});
}

// Three free ports in a row: HTTP, gRPC, memberlist.
async function freePorts() {
	for (let i = 0; i < 50; i++) {
		const p = 20000 + Math.floor(Math.random() * 30000);
		if (await portFree(p) && await portFree(p + 1) &&
		    await portFree(p + 2))
			return p;
	}
	throw new Error("no free ports");
}

function request(port, method, urlPath, body, timeout = 20000) {
	return new Promise((resolve) => {
		const req = http.request({ host: "127.0.0.1", port, method,
			path: urlPath, timeout,
			headers: body ? { "content-type": "application/json" } :
				{} }, (res) => {
			const chunks = [];
			res.on("data", (c) => chunks.push(c));
			res.on("end", () => resolve({ code: res.statusCode,
				body: Buffer.concat(chunks).toString() }));
		});
		req.on("error", (e) => resolve({ code: 0, body: String(e) }));
		req.on("timeout", () => req.destroy(new Error("timeout")));
		if (body)
			req.write(JSON.stringify(body));
		req.end();
	});
}

async function api(port, what, body) {
	const r = await request(port, "POST",
		`/querier.v1.QuerierService/${what}`, body);
	try {
		return JSON.parse(r.body);
	} catch (e) {
		return { error: r.body };
	}
}

// Start the server; resolves to its HTTP port once /ready says so.
async function startServer(startSh, tmp) {
	const cache = path.join(build, "pyroscope-bin");
	const bin = path.join(cache, "pyroscope");
	const xz = path.join(path.dirname(startSh), "pyroscope.xz");
	const data = path.join(tmp, "server");
	fs.mkdirSync(data);
	if (!fs.existsSync(bin) && fs.existsSync(xz)) {
		fs.mkdirSync(cache, { recursive: true });
		execFileSync("sh", ["-c", 'xz -dc "$1" >"$2.tmp" && ' +
			'chmod +x "$2.tmp" && mv "$2.tmp" "$2"', "sh", xz, bin]);
	}
	if (fs.existsSync(bin))
		fs.symlinkSync(bin, path.join(data, "pyroscope"));
	const port = await freePorts();
	const log = fs.openSync(path.join(tmp, "server.log"), "w");
	server = spawn("sh", [startSh, data, String(port)],
		{ stdio: ["ignore", log, log] });
	const t0 = Date.now();
	let ready = false;
	// generous: a busy 2-core host unpacks and starts it slowly
	while (Date.now() - t0 < 150000 && server.exitCode === null) {
		const r = await request(port, "GET", "/ready", null, 2000);
		if (r.code === 200 && /ready/.test(r.body))
			break;
		await sleep(300);
	}
	// /ready comes before its ingester joins the ring: until then it
	// answers ingestion with 422 and queries with 500 ("empty ring")
	while (Date.now() - t0 < 180000 && server.exitCode === null) {
		const r = await request(port, "POST",
			"/querier.v1.QuerierService/LabelNames", {}, 2000);
		const w = r.code === 200 ? await run(["--url",
			`http://127.0.0.1:${port}`, "--retries", "0", "-N",
			"warmup.cpu", chainAt(tmp, Math.floor(Date.now() / 1000)
				- 100, "warmup.cap")]) : { code: 1 };
		if (w.code === 0) {
			ready = true;
			break;
		}
		await sleep(500);
	}
	return { port: ready ? port : 0, ms: Date.now() - t0 };
}

function stopServer() {
	return new Promise((resolve) => {
		if (!server || server.exitCode !== null)
			return resolve();
		const kill = setTimeout(() => server.kill("SIGKILL"), 15000);
		server.on("exit", () => { clearTimeout(kill); resolve(); });
		// start.sh execs the server: this is the server's pid
		server.kill("SIGTERM");
	});
}

function run(args, env = {}) {
	return new Promise((resolve) => {
		const t0 = Date.now();
		const p = spawn(stackid, ["push", ...args],
			{ stdio: ["ignore", "pipe", "pipe"],
			  env: { ...process.env, DEBUGINFOD_URLS: "", ...env } });
		let out = "", err = "";
		p.stdout.on("data", (d) => { out += d; });
		p.stderr.on("data", (d) => { err += d; });
		p.on("exit", (code) => resolve({ code, out, err,
			ms: Date.now() - t0 }));
	});
}

// `stackid report --format folded`: Map "a;b;c" -> ns.
function folded(cap, extra = []) {
	const m = new Map();
	const text = execFileSync(stackid, ["report", "-i", cap, "-f", "folded",
		...extra], { env: { ...process.env, DEBUGINFOD_URLS: "" } })
		.toString("utf8");
	for (const line of text.split("\n")) {
		const sp = line.lastIndexOf(" ");
		if (sp <= 0)
			continue;
		const k = line.slice(0, sp);
		m.set(k, (m.get(k) || 0) + Number(line.slice(sp + 1)) * PERIOD);
	}
	return m;
}

// The server's flame graph names a node "other" for what it left out: a
// frame of that name loses its children there (not in what it stored).
function asFlame(m) {
	const out = new Map();
	for (const [k, v] of m) {
		const f = k.split(";"), i = f.indexOf("other");
		const kk = i >= 0 ? f.slice(0, i + 1).join(";") : k;
		out.set(kk, (out.get(kk) || 0) + v);
	}
	return out;
}

// A flame graph (levels of [dx, total, self, name] fours) as folded.
function flameFolded(fg) {
	const m = new Map();
	if (!fg || !fg.levels)
		return m;
	let prev = [];		// [x, total, path] of the level above
	for (let l = 0; l < fg.levels.length; l++) {
		const v = (fg.levels[l].values || []).map(Number), cur = [];
		let x = 0;
		for (let i = 0; i + 3 < v.length; i += 4) {
			x += v[i];
			const name = fg.names[v[i + 3]];
			const parent = prev.find((p) => x >= p[0] &&
				x < p[0] + p[1]);
			const p = l === 0 ? "" : (parent && parent[2] ?
				parent[2] + ";" : "") + name;
			if (l > 0 && v[i + 2])
				m.set(p, (m.get(p) || 0) + v[i + 2]);
			cur.push([x, v[i + 1], l === 0 ? "" : p]);
			x += v[i + 1];
		}
		prev = cur;
	}
	return m;
}

// A merged profile (pprof as JSON) as folded.
function profileFolded(pr) {
	const m = new Map();
	if (!pr || !pr.sample)
		return m;
	const st = pr.stringTable || [];
	const fn = new Map((pr.function || []).map((f) =>
		[String(f.id), st[Number(f.name || 0)]]));
	const loc = new Map((pr.location || []).map((l) =>
		[String(l.id), (l.line || []).map((x) =>
			fn.get(String(x.functionId)))]));
	for (const s of pr.sample) {
		const names = [];
		for (const id of s.locationId || [])
			names.push(...(loc.get(String(id)) || ["?"]).reverse());
		const k = names.reverse().join(";");
		const v = Number((s.value || [0])[0]);
		if (v)
			m.set(k, (m.get(k) || 0) + v);
	}
	return m;
}

function diff(want, got) {
	const d = [];
	for (const [k, v] of want)
		if (got.get(k) !== v)
			d.push(`want ${JSON.stringify(k)} ${v}, got ${got.get(k)}`);
	for (const [k, v] of got)
		if (!want.has(k))
			d.push(`extra ${JSON.stringify(k)} ${v}`);
	return d;
}
const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);

async function stored(port, service, from, until, extra = "") {
	const body = { profile_typeID: TYPE,
		label_selector: `{service_name="${service}"${extra}}`,
		start: from * 1000, end: until * 1000 - 1 };	/* [from, until) */
	const fg = await api(port, "SelectMergeStacktraces",
		{ ...body, max_nodes: 65536 });
	const pr = await api(port, "SelectMergeProfile", body);
	return { flame: flameFolded(fg.flamegraph), profile: profileFolded(pr),
		total: Number(fg.flamegraph ? fg.flamegraph.total || 0 : 0) };
}

async function series(port, service) {
	const r = await api(port, "Series",
		{ matchers: [`{service_name="${service}"}`] });
	return (r.labelsSet || []).length;
}

// Compare what the server stored of a capture with its folded report.
async function compare(port, what, service, cap, from, until, extra = []) {
	const want = folded(cap, extra);
	let got = null;
	// the server answers queries of what it took within a moment
	for (let i = 0; i < 20; i++) {
		got = await stored(port, service, from, until);
		if (got.total >= sum(want))
			break;
		await sleep(250);
	}
	const d1 = diff(want, got.profile), d2 = diff(asFlame(want), got.flame);
	ok(!d1.length, `${what}: the stored profile == the folded report ` +
		`(${want.size} stacks, ${sum(want)} ns)` +
		(d1.length ? ": " + d1.slice(0, 4).join("; ") : ""));
	ok(!d2.length, `${what}: the flame graph == the folded report ` +
		`(${got.flame.size} stacks, total ${got.total} ns)` +
		(d2.length ? ": " + d2.slice(0, 4).join("; ") : ""));
	return got;
}

// The chain capture moved to wall clock @wall (s): the server keeps
// only recent data.
function chainAt(tmp, wall, name) {
	const b = fs.readFileSync(chainCap), old = Buffer.alloc(8),
		now = Buffer.alloc(8);
	old.writeBigUInt64LE(CHAIN_WALL * 1000000000n);
	now.writeBigUInt64LE(BigInt(wall) * 1000000000n);
	const i = b.indexOf(old);
	if (i >= 0)
		now.copy(b, i);
	const f = path.join(tmp, name);
	fs.writeFileSync(f, b);
	return f;
}

async function main() {
	const startSh = process.env.STACKID_PYROSCOPE;
	if (!startSh) {
		console.log("ok 1 # SKIP no Pyroscope server (set " +
			"STACKID_PYROSCOPE)");
		n = 1;
		return;
	}
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "stackid-pyro."));
	try {
		await tests(startSh, tmp);
	} finally {
		await stopServer();
		if (failed)
			try {
				console.log(fs.readFileSync(path.join(tmp,
					"server.log")).toString().split("\n")
					.filter((l) => /level=(error|warn)/
						.test(l)).slice(-10)
					.map((l) => "# server: " + l).join("\n"));
			} catch (e) { /* no log */ }
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

async function tests(startSh, tmp) {
	const { port, ms } = await startServer(startSh, tmp);
	if (!ok(port, `the server is ready on 127.0.0.1 and takes profiles (${ms} ms)`))
		return;
	const url = `http://127.0.0.1:${port}`;
	// 20 s ago, whole tens: the captures' 10 s are in the past
	const base = Math.floor(Date.now() / 10000) * 10 - 60;
	const spool = path.join(tmp, "spool");
	const common = ["--url", url, "--retries", "2", "--backoff", "0.2",
		"--timeout", "20"];

	// 1. the known chain, symbolized here
	const chain = chainAt(tmp, base, "chain.cap");
	let r = await run([...common, "-N", "chain.cpu", chain]);
	ok(r.code === 0 && /1 sent,/.test(r.err),
		`chain: pushed, exit ${r.code} (${r.ms} ms)` +
		(r.code ? `: ${r.err.split("\n").join(" | ")}` : ""));
	let got = await compare(port, "chain", "chain.cpu", chain, base,
		base + 10);
	ok(got.total === 100 * PERIOD, `chain: total ${got.total} ns = 100 ` +
		"samples x 10101010 ns");
	r = await run([...common, "-N", "chain.cpu", chain]);
	got = await stored(port, "chain.cpu", base, base + 10);
	ok(r.code === 0 && got.total === 100 * PERIOD,
		`chain pushed again: stored once (${got.total} ns)`);

	// 2. without symbols: frames named BUILDID+0xOFF, none lost
	r = await run([...common, "--no-symbols", "-N", "nosym.cpu", chain]);
	ok(r.code === 0, `--no-symbols: exit ${r.code}`);
	await compare(port, "--no-symbols", "nosym.cpu", chain, base,
		base + 10, ["--no-symbols"]);

	// 3. hostile names, 10 s of samples: a point per second
	const hostile = path.join(tmp, "hostile.cap");
	execFileSync(mkcapture, ["push", hostile, "hostile", String(base)]);
	r = await run([...common, "-N", "hostile.cpu", hostile]);
	ok(r.code === 0 && /10 sent,/.test(r.err),
		`hostile names: pushed, one profile per second: exit ${r.code}` +
		`, ${(r.err.match(/\d+ sent,/) || ["none"])[0]}` +
		(r.code ? ` (${r.err.split("\n").slice(-3).join(" | ")})` : ""));
	got = await compare(port, "hostile names", "hostile.cpu", hostile,
		base, base + 10);
	const per = [];
	for (let s = 0; s < 10; s++)
		per.push((await stored(port, "hostile.cpu", base + s,
			base + s + 1)).total / PERIOD);
	ok(per.every((x) => x === 100) && got.total === 1000 * PERIOD,
		`hostile names: each 1 s window holds its 100 samples ` +
		`(${per.join(" ")})`);
	ok(await series(port, "hostile.cpu") === 1,
		"hostile names: one series by default");
	r = await run([...common, "-N", "hostile_series.cpu", "-L",
		"cgroup,comm", hostile]);
	const ns = await series(port, "hostile_series.cpu");
	ok(r.code === 0 && ns === 10,
		`--series-labels cgroup,comm: ${ns} series (2 cgroups x 5 ` +
		`comms), exit ${r.code}`);

	// 4. 10,000 threads: one series, every sample
	const threads = path.join(tmp, "threads.cap");
	execFileSync(mkcapture, ["push", threads, "threads", String(base)]);
	r = await run([...common, "-N", "threads.cpu", threads]);
	ok(r.code === 0, `10,000 threads: pushed, exit ${r.code} (${r.ms} ms)`);
	got = await compare(port, "10,000 threads", "threads.cpu", threads,
		base, base + 10);
	ok(got.total === 20000 * PERIOD &&
	   await series(port, "threads.cpu") === 1,
		`10,000 threads: ${got.total / PERIOD} of 20000 samples, ` +
		"one series");

	// 5. refused data never delays good data: a spool item the server
	// refuses (400), then 10,000 series (429: past the tenant's limit)
	fs.mkdirSync(spool, { mode: 0o700 });
	fs.writeFileSync(path.join(spool, "000000000001.push"),
		"STACKIDPUSH1\nname=bad.cpu&from=" + base + "&until=" +
		(base + 10) + "&format=pprof\nnot a profile");
	r = await run([...common, "--spool", spool, "-N", "flood.cpu", "-L",
		"tid", "--retries", "1", threads]);
	const flood = (await stored(port, "flood.cpu", base, base + 10)).total;
	ok(r.code === 2 && /answered 429/.test(r.err) &&
	   /1 rejected/.test(r.err) && /spooled/.test(r.err),
		`10,000 series: 429, spooled; the refused spool item dropped ` +
		`and counted, exit 2 (exit ${r.code}, ${flood / PERIOD} of ` +
		`20000 samples stored: ` +
		`${(r.err.match(/[^\n]*sent,[^\n]*/) || [""])[0]})`);
	const later = chainAt(tmp, base + 30, "later.cap");
	r = await run([...common, "--spool", spool, "-N", "chain.cpu", later]);
	got = await stored(port, "chain.cpu", base + 30, base + 40);
	const left = fs.readdirSync(spool).filter((f) => f.endsWith(".push"));
	ok(r.code === 0 && /1 sent,/.test(r.err) &&
	   got.total === 100 * PERIOD && left.length > 0,
		`a good capture after them: sent first, stored (${got.total} ` +
		`ns) in ${r.ms} ms; ${left.length} refused items wait in the ` +
		"spool");
}

main().catch((e) => ok(false, e.stack)).finally(() => {
	console.log("1.." + n);
	process.exit(failed ? 1 : 0);
});
