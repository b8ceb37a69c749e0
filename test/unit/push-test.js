// SPDX-License-Identifier: GPL-2.0
/*
 * push-test.js BUILD: `stackid push` against a Pyroscope-like HTTP server
 * that this script runs on 127.0.0.1 (a free port; nothing is sent
 * anywhere else). The server logs and checks each request (method, path,
 * query, content type, a body that is gzip and that `go tool pprof`
 * decodes to the known chain), and plays an outage (503), a server that
 * is not there (refused connection), a slow server (timeout), a
 * rejecting one (400), one that never answers (SIGTERM must still end
 * push at once), one whose answer holds terminal control sequences, one
 * that wants credentials. Also: names and labels the real server would
 * refuse are refused before anything is sent; planted symlinks are
 * never written through; a full disk leaks no descriptor and leaves no
 * half-written spool file; --follow reports a bad capture in its exit
 * status. The real server: pyroscope-test.js. TAP on stdout; the request
 * log as comments.
 */
"use strict";
const http = require("http");
const zlib = require("zlib");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawn, execFileSync } = require("child_process");

const build = path.resolve(process.argv[2] || "build");
const stackid = path.join(build, "stackid");
const chain = path.join(build, "report-fix/chain.cap");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "stackid-push."));
let n = 0, failed = 0;
function ok(cond, what) {
	n++;
	if (!cond) failed++;
	console.log(`${cond ? "" : "not "}ok ${n} - ${what}`);
	return cond;
}

// The server: mode says how it answers; every request is logged.
let mode = "ok", slowOnce = 0;
const hung = [];
const log = [];
const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const u = new URL(req.url, "http://x");
		const r = { t: Date.now(), method: req.method, path: u.pathname,
			q: Object.fromEntries(u.searchParams),
			type: req.headers["content-type"],
			body: Buffer.concat(chunks), mode,
			auth: req.headers.authorization };
		log.push(r);
		console.log(`# server: ${r.method} ${req.url} ` +
			`(${r.type}, ${r.body.length} bytes) -> ${mode}`);
		const answer = (code, text) => {
			res.writeHead(code, { "Content-Type": "text/plain" });
			res.end(text + "\n");
		};
		if (mode === "down") return answer(503, "down for maintenance");
		if (mode === "reject") return answer(400, "bad profile");
		if (mode === "hang") return hung.push(res);
		if (mode === "evil")
			return answer(400, "bad \x1b]0;owned\x07\x1b[2J" +
				"\xc2\x9b31m\r\nforged line");
		if (mode === "auth" && r.auth !== "Basic " +
		    Buffer.from("alice:s3cret").toString("base64"))
			return answer(401, "who are you");
		if (mode === "slow" && slowOnce > 0) {
			slowOnce--;
			setTimeout(() => answer(200, "late"), 2500);
			return;
		}
		answer(200, "ok");
	});
});

function run(args, opt = {}) {
	return new Promise((resolve) => {
		const t0 = Date.now();
		const cmd = opt.sh ? "sh" : stackid;
		const argv = opt.sh ? ["-c", opt.sh + ' exec "$0" push "$@"',
			stackid, ...args] : ["push", ...args];
		const p = spawn(cmd, argv,
			{ stdio: ["ignore", "pipe", "pipe"],
			  env: { ...process.env, DEBUGINFOD_URLS: "",
				  STACKID_PUSH_CREDENTIALS: "",
				  ...(opt.env || {}) } });
		let out = "", err = "";
		p.stdout.on("data", (d) => { out += d; });
		p.stderr.on("data", (d) => { err += d; });
		if (opt.term)
			setTimeout(() => p.kill("SIGTERM"), opt.term);
		if (opt.spawned)
			opt.spawned(p);
		p.on("exit", (code, sig) => resolve({ code, sig, out, err,
			ms: Date.now() - t0 }));
	});
}

function pprofRaw(body) {
	const f = path.join(tmp, "body.pb.gz");
	fs.writeFileSync(f, body);
	try {
		return execFileSync("go", ["tool", "pprof", "-raw",
			"-symbolize=none", f], { env: { ...process.env, HOME: tmp },
			stdio: ["ignore", "pipe", "ignore"] }).toString();
	} catch (e) {
		return "";
	}
}

const spool = path.join(tmp, "spool");
const spooled = () => fs.existsSync(spool) ?
	fs.readdirSync(spool).filter((f) => f.endsWith(".push")).sort() : [];

async function main() {
	try {
		execFileSync("go", ["version"], { stdio: "ignore" });
	} catch (e) {
		ok(false, "go not found: install Debian's golang-go (go tool " +
			"pprof decodes the bodies)");
		return;
	}
	await new Promise((r) => server.listen(0, "127.0.0.1", r));
	const url = `http://127.0.0.1:${server.address().port}`;
	const base = ["--url", url, "--retries", "2", "--backoff", "0.2",
		"--timeout", "1", "--spool", spool];

	// 1. a healthy server
	let r = await run([...base, "--label", "env=test", "--label",
		"host=h1", chain]);
	let q = log[0] || { q: {}, body: Buffer.alloc(0) };
	ok(r.code === 0 && log.length === 1 && /1 sent,/.test(r.err),
		`push one capture: exit ${r.code}, ${log.length} request`);
	ok(q.method === "POST" && q.path === "/ingest" &&
		q.q.name === "stackid.cpu{env=test,host=h1}" &&
		q.q.from === "1767225600" && q.q.until === "1767225610" &&
		q.q.format === "pprof" && q.q.sampleRate === "99" &&
		q.q.spyName === "stackid",
		"POST /ingest?name=stackid.cpu{env=test,host=h1}&from=1767225600" +
		"&until=1767225610&format=pprof&sampleRate=99&spyName=stackid");
	ok(q.type === "application/octet-stream", "content type " + q.type);
	let gz = false;
	try { gz = zlib.gunzipSync(q.body).length > 0; } catch (e) { gz = false; }
	const raw = pprofRaw(q.body);
	ok(gz && / 60 .*: 1 2 3 4 5 6 7 8 /.test(raw) &&
		/lib_spin/.test(raw) && /main/.test(raw) &&
		/: 9 6 7 10 /.test(raw) && / 0x7fff0000 /.test(raw) &&
		!/comm:|pid:|tid:|cpu:/.test(raw),
		"the body is gzip and go tool pprof decodes the known chain, " +
		"symbolized on this host, every frame named (0x7fff0000 too), " +
		"the comm outermost, no sample labels");
	ok(spooled().length === 0, "nothing spooled");

	// 2. an outage: 503, retried with backoff, then spooled
	mode = "down";
	log.length = 0;
	r = await run([...base, "--label", "run=1", chain]);
	const gaps = log.slice(1).map((x, i) => x.t - log[i].t);
	ok(r.code === 0 && log.length === 3 && /2 retries, 1 spooled/.test(r.err)
		&& spooled().length === 1,
		`503: 3 tries, then spooled (exit ${r.code}, ${spooled().length} ` +
		"in the spool)");
	ok(gaps.length === 2 && gaps[0] >= 190 && gaps[1] >= 390,
		`backoff doubles: ${gaps.join(" ms, ")} ms between tries`);

	// 3. no server at all: refused connections, spooled too
	const dead = http.createServer();
	await new Promise((res) => dead.listen(0, "127.0.0.1", res));
	const deadUrl = `http://127.0.0.1:${dead.address().port}`;
	await new Promise((res) => dead.close(res));
	r = await run(["--url", deadUrl, "--retries", "1", "--backoff", "0.1",
		"--spool", spool, "--label", "run=2", chain]);
	ok(r.code === 0 && spooled().length === 2 &&
		/Could not connect|Couldn't connect|Connection refused/i.test(r.err),
		"refused connection: said so, spooled (" +
		r.err.split("\n")[0] + ")");

	// 4. the server is back: the spool goes first, oldest first
	mode = "ok";
	log.length = 0;
	r = await run([...base]);
	ok(r.code === 0 && log.length === 2 && spooled().length === 0 &&
		log[0].q.name === "stackid.cpu{run=1}" &&
		log[1].q.name === "stackid.cpu{run=2}" &&
		/2 sent from the spool/.test(r.err),
		"back: the 2 spooled profiles sent in order, spool empty");
	ok(log.length === 2 && pprofRaw(log[1].body).includes("lib_spin"),
		"a spooled body still decodes");

	// 5. a slow server: the first try times out, the retry goes through
	mode = "slow";
	slowOnce = 1;
	log.length = 0;
	const t0 = Date.now();
	r = await run([...base, chain]);
	ok(r.code === 0 && log.length === 2 && /1 sent,.* 1 retries/.test(r.err)
		&& /timed out|Timeout/i.test(r.err),
		`slow server: timed out after 1 s, retried, sent ` +
		`(${Date.now() - t0} ms)`);

	// 6. the spool's bound: the oldest profile is dropped, and counted
	mode = "down";
	const one = log[1] ? log[1].body.length : 2000;
	const max = String(Math.floor(one * 1.5) + 300);
	r = await run([...base, "--retries", "0", "--spool-max", max,
		"--label", "run=a", chain]);
	const r2 = await run([...base, "--retries", "0", "--spool-max", max,
		"--label", "run=b", chain]);
	const left = spooled().map((f) =>
		fs.readFileSync(path.join(spool, f)).toString("latin1"));
	ok(r.code === 0 && r2.code === 2 && /1 dropped/.test(r2.err) &&
		left.length === 1 && left[0].includes("run%3Db"),
		`spool bound ${max} bytes: the oldest dropped and counted, ` +
		"the newest kept, exit 2");

	// 7. a rejecting server: no retry, not spooled, counted
	mode = "ok";
	await run([...base]);		// empty the spool
	mode = "reject";
	log.length = 0;
	r = await run([...base, chain]);
	ok(r.code === 2 && log.length === 1 && /1 rejected/.test(r.err) &&
		/answered 400: bad profile/.test(r.err) && spooled().length === 0,
		"400: one try, rejected, not spooled, exit 2");

	// 8. --dir: the closed captures, once each
	mode = "ok";
	const dir = path.join(tmp, "caps");
	fs.mkdirSync(dir);
	for (const name of ["stackid-20260101T000000.000000Z.cap",
		"stackid-20260101T000100.000000Z.cap",
		".stackid-20260101T000200.000000Z.cap.tmp"])
		fs.copyFileSync(chain, path.join(dir, name));
	log.length = 0;
	r = await run(["--url", url, "--dir", dir]);
	const first = log.length;
	r = await run(["--url", url, "--dir", dir]);
	ok(first === 2 && log.length === 2 && r.code === 0 &&
		fs.readFileSync(path.join(dir, ".stackid-pushed")).toString() ===
		"stackid-20260101T000100.000000Z.cap\n",
		`--dir: the 2 closed captures pushed (not the .tmp), nothing ` +
		"again on the next run");

	// 9. what the server would refuse is refused here, before sending
	log.length = 0;
	const refused = [["-l", "host.name=x"], ["-l", "my-key=x"],
		["-N", "my app.cpu"], ["-l", "__name__=evil"],
		["-l", "service_name=x"], ["-l", "1k=x"], ["-l", "k=a,b"],
		["-l", "k=\x1b[2J"], ["-L", "tid", "-l", "tid=1"],
		["-L", "pids"]];
	const codes = [];
	for (const a of refused)
		codes.push((await run(["--url", url, ...a, chain])).code);
	ok(codes.every((c) => c === 1) && log.length === 0,
		`refused before sending: ${refused.map((a) => a.join(" "))
			.join(", ")} (exits ${codes.join(" ")}, ${log.length} ` +
		"requests)");

	// 10. the server's answer reaches the terminal without controls
	mode = "evil";
	r = await run(["--url", url, chain]);
	ok(r.code === 2 && !/[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/
		.test(r.err.replace(/\n/g, "")) && /\u0080|\u009b/.test(r.err)
		=== false && /answered 400: bad \?/.test(r.err),
		"the server's answer printed with its control characters as ? (" +
		JSON.stringify(r.err.split("\n")[0]) + ")");

	// 11. credentials from a file or the environment, not the URL
	mode = "auth";
	const creds = path.join(tmp, "creds");
	fs.writeFileSync(creds, "alice:s3cret\n", { mode: 0o600 });
	log.length = 0;
	r = await run(["--url", url, "--credentials", creds, chain]);
	const r3 = await run(["--url", url, chain],
		{ env: { STACKID_PUSH_CREDENTIALS: "alice:s3cret" } });
	const r4 = await run(["--url", url, chain]);
	fs.chmodSync(creds, 0o644);
	const r5 = await run(["--url", url, "--credentials", creds, chain]);
	ok(r.code === 0 && r3.code === 0 && r4.code === 2 && r5.code === 1 &&
		/readable by everyone/.test(r5.err),
		`credentials: --credentials FILE ${r.code}, ` +
		`STACKID_PUSH_CREDENTIALS ${r3.code}, none ${r4.code} (401), ` +
		`a world-readable file refused (${r5.code})`);

	// 12. SIGTERM while the server never answers: out at once, spooled
	mode = "hang";
	const sp2 = path.join(tmp, "spool2");
	r = await run(["--url", url, "--retries", "5", "--timeout", "60",
		"--spool", sp2, chain], { term: 700 });
	ok(r.code === 0 && r.ms < 3000 && /1 spooled/.test(r.err) &&
		/stopped by a signal/.test(r.err),
		`SIGTERM during a transfer that never ends: exit ${r.code} ` +
		`after ${r.ms} ms, the profile spooled`);
	hung.splice(0).forEach((x) => x.destroy());
	mode = "down";
	r = await run(["--url", url, "--retries", "5", "--backoff", "20",
		"--spool", sp2, chain], { term: 700 });
	ok(r.code === 0 && r.ms < 3000 && /2 spooled|1 spooled/.test(r.err),
		`SIGTERM during a 20 s backoff: exit ${r.code} after ${r.ms} ms`);

	// 13. planted symlinks: never written through
	const victim = path.join(tmp, "victim");
	fs.writeFileSync(victim, "precious\n");
	const d2 = path.join(tmp, "caps2");
	fs.mkdirSync(d2, { mode: 0o700 });
	fs.copyFileSync(chain, path.join(d2,
		"stackid-20260101T000000.000000Z.cap"));
	fs.symlinkSync(victim, path.join(d2, ".stackid-pushed.tmp"));
	fs.mkdirSync(path.join(d2, ".spool"), { mode: 0o700 });
	for (let i = 0; i < 4; i++)
		fs.symlinkSync(victim, path.join(d2, ".spool",
			`00000000000${i}.push.tmp`));
	mode = "down";
	r = await run(["--url", url, "--retries", "0", "--dir", d2]);
	mode = "ok";
	const r6 = await run(["--url", url, "--dir", d2]);
	ok(fs.readFileSync(victim).toString() === "precious\n" &&
		r.code === 0 && r6.code === 0 &&
		fs.readFileSync(path.join(d2, ".stackid-pushed")).toString() ===
		"stackid-20260101T000000.000000Z.cap\n",
		"symlinks planted as .stackid-pushed.tmp and NNN.push.tmp: " +
		`the target untouched (exits ${r.code}, ${r6.code})`);
	fs.chmodSync(d2, 0o777);
	r = await run(["--url", url, "--dir", d2]);
	ok(r.code === 2 && /writable by its owner alone/.test(r.err),
		"a capture directory others may write: refused");

	// 14. a full disk with --dir: no descriptor leaked, no .tmp left
	const d3 = path.join(tmp, "caps3");
	fs.mkdirSync(d3, { mode: 0o700 });
	for (let i = 0; i < 60; i++)
		fs.copyFileSync(chain, path.join(d3, "stackid-20260101T0000" +
			String(i).padStart(2, "0") + ".000000Z.cap"));
	mode = "down";
	r = await run(["--url", url, "--retries", "0", "--dir", d3],
		{ sh: "trap '' XFSZ; ulimit -f 1; ulimit -n 32;" });
	const tmps = fs.readdirSync(path.join(d3, ".spool"))
		.filter((f) => f.endsWith(".tmp"));
	ok(r.code === 2 && /60 dropped/.test(r.err) && tmps.length === 0 &&
		!/Too many open files/.test(r.err),
		`a spool on a full disk (ulimit -f, -n 32), 60 captures: each ` +
		`dropped and counted, ${tmps.length} .tmp left, exit ${r.code}`);

	// 15. --follow: a bad capture is in the exit status
	mode = "ok";
	const d4 = path.join(tmp, "caps4");
	fs.mkdirSync(d4, { mode: 0o700 });
	fs.writeFileSync(path.join(d4, "stackid-20260101T000000.000000Z.cap"),
		"not a capture at all");
	fs.copyFileSync(chain, path.join(d4,
		"stackid-20260101T000100.000000Z.cap"));
	r = await run(["--url", url, "--dir", d4, "--follow", "--interval",
		"0.2"], { term: 1500 });
	ok(r.code === 3 && /1 sent,.*1 bad captures/.test(r.err),
		`--follow with a bad capture: exit ${r.code} (3)`);

	// 16. --dir --follow, SIGTERM while a capture is read (600,000
	// distinct stacks: seconds to read, the signal after 300 ms): out
	// before any of it is sent or spooled, the capture not marked
	// pushed; the next run pushes it whole. (Before: read to its end,
	// every part spooled, marked pushed; a real system's service took
	// longer than systemd's 90 s stop timeout so, and was killed.)
	mode = "ok";
	const d5 = path.join(tmp, "caps5");
	fs.mkdirSync(d5, { mode: 0o700 });
	const big = path.join(d5, "stackid-20260101T000000.000000Z.cap");
	execFileSync(path.join(build, "mkcapture"),
		["bench", big, "600000", "11", "0"]);
	let before = log.length;
	r = await run(["--url", url, "--dir", d5, "--follow", "--interval",
		"0.2", "--no-symbols"], { term: 300 });
	const state5 = path.join(d5, ".stackid-pushed");
	const sp5 = path.join(d5, ".spool");
	const left5 = fs.existsSync(sp5) ? fs.readdirSync(sp5).length : 0;
	ok(r.code === 0 && log.length === before && left5 === 0 &&
		!fs.existsSync(state5) && /0 sent,.* 0 spooled/.test(r.err) &&
		/stopped by a signal/.test(r.err),
		`SIGTERM while a capture is read: exit ${r.code} after ` +
		`${r.ms} ms, ${log.length - before} requests, ${left5} ` +
		`spooled, ${fs.existsSync(state5) ? "marked" : "not marked"} ` +
		"pushed");
	before = log.length;
	r = await run(["--url", url, "--dir", d5, "--no-symbols"]);
	ok(r.code === 0 && log.length > before &&
		fs.existsSync(state5) &&
		fs.readFileSync(state5).toString() === path.basename(big) + "\n",
		`and the next run pushes it: exit ${r.code}, ` +
		`${log.length - before} requests`);
	fs.rmSync(big, { force: true });

	// 17. --dir: the files behind the captures' build-ids are read once
	// for all the captures, not once each (the symbolizer is kept from
	// one capture to the next: a real system's service re-read every
	// library for every capture)
	const d6 = path.join(tmp, "caps6");
	fs.mkdirSync(d6, { mode: 0o700 });
	r = await run(["--url", url, chain]);
	const reads = (e) => {
		const m = / (\d+) build-ids read for symbols/.exec(e);
		return m ? Number(m[1]) : -1;
	};
	const once = reads(r.err);
	for (let i = 0; i < 5; i++)
		fs.copyFileSync(chain, path.join(d6,
			`stackid-20260101T00000${i}.000000Z.cap`));
	before = log.length;
	r = await run(["--url", url, "--dir", d6]);
	const five = reads(r.err);
	ok(r.code === 0 && log.length - before === 5 && once > 0 &&
		five === once && log.slice(before).every((x) =>
			/lib_spin/.test(pprofRaw(x.body))),
		`five captures of the same files: ${five} build-ids read for ` +
		`symbols, as for one (${once}); all five named`);

	// 18. --follow: while no capture comes, the kept symbols are let go
	// once they are STACKID_SYMBOLS_KEEP old (10 minutes by default),
	// so that an idle service holds no file open (a library an upgrade
	// deleted keeps its disk space while it is open). The files are
	// those behind chain.cap's build-ids, in report-fix/.
	const fixfds = (pid) => {
		let n = 0;
		try {
			for (const f of fs.readdirSync(`/proc/${pid}/fd`)) {
				try {
					if (/\/report-fix\//.test(fs.readlinkSync(
						`/proc/${pid}/fd/${f}`)))
						n++;
				} catch (e) { /* closed meanwhile */ }
			}
		} catch (e) {
			return -1;
		}
		return n;
	};
	const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
	const idle = async (env, ms) => {
		const d = fs.mkdtempSync(path.join(tmp, "caps7."));
		fs.chmodSync(d, 0o700);
		fs.copyFileSync(chain, path.join(d,
			"stackid-20260101T000000.000000Z.cap"));
		let child;
		const done = run(["--url", url, "--dir", d, "--follow",
			"--interval", "0.2"], { env, spawned: (c) => {
			child = c;
		} });
		const state = path.join(d, ".stackid-pushed");
		const t0 = Date.now();
		while (!fs.existsSync(state) && Date.now() - t0 < 60000)
			await sleep(50);
		const t1 = Date.now();
		let held = fixfds(child.pid), most = held;
		// held: every look for ms; let go: the first look that finds none
		while (Date.now() - t1 < ms && (env ? held !== 0 : true)) {
			await sleep(50);
			held = fixfds(child.pid);
			most = Math.max(most, held);
		}
		const ms2 = Date.now() - t1;
		child.kill("SIGTERM");
		const r2 = await done;
		return { pushed: fs.existsSync(state), held, most, ms: ms2,
			code: r2.code };
	};
	const k = await idle(null, 3000);
	ok(k.pushed && k.code === 0 && k.held > 0,
		`--follow, idle for ${k.ms} ms after a capture: its ` +
		`${k.held} files are kept open (the default: 10 minutes)`);
	const g = await idle({ STACKID_SYMBOLS_KEEP: "1" }, 30000);
	ok(g.pushed && g.code === 0 && g.held === 0,
		`--follow with STACKID_SYMBOLS_KEEP=1: all ${g.most} of them ` +
		`let go ${g.ms} ms after the capture was pushed ` +
		`(${g.held} left)`);
}

main().catch((e) => ok(false, e.stack)).finally(() => {
	server.close();
	fs.rmSync(tmp, { recursive: true, force: true });
	console.log("1.." + n);
	process.exit(failed ? 1 : 0);
});
