// SPDX-License-Identifier: GPL-2.0
/*
 * push-test.js BUILD: `stackid push` against a Pyroscope-like HTTP server
 * that this script runs on 127.0.0.1 (a free port; nothing is sent
 * anywhere else). The server logs and checks each request (method, path,
 * query, content type, a body that is gzip and that `go tool pprof`
 * decodes to the known chain), and plays an outage (503), a server that
 * is not there (refused connection), a slow server (timeout) and a
 * rejecting one (400). TAP on stdout; the request log as comments.
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
const log = [];
const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const u = new URL(req.url, "http://x");
		const r = { t: Date.now(), method: req.method, path: u.pathname,
			q: Object.fromEntries(u.searchParams),
			type: req.headers["content-type"],
			body: Buffer.concat(chunks), mode };
		log.push(r);
		console.log(`# server: ${r.method} ${req.url} ` +
			`(${r.type}, ${r.body.length} bytes) -> ${mode}`);
		const answer = (code, text) => {
			res.writeHead(code, { "Content-Type": "text/plain" });
			res.end(text + "\n");
		};
		if (mode === "down") return answer(503, "down for maintenance");
		if (mode === "reject") return answer(400, "bad profile");
		if (mode === "slow" && slowOnce > 0) {
			slowOnce--;
			setTimeout(() => answer(200, "late"), 2500);
			return;
		}
		answer(200, "ok");
	});
});

function run(args) {
	return new Promise((resolve) => {
		const p = spawn(stackid, ["push", ...args],
			{ stdio: ["ignore", "pipe", "pipe"],
			  env: { ...process.env, DEBUGINFOD_URLS: "" } });
		let out = "", err = "";
		p.stdout.on("data", (d) => { out += d; });
		p.stderr.on("data", (d) => { err += d; });
		p.on("exit", (code) => resolve({ code, out, err }));
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
	ok(gz && / 30 .*: 1 2 3 4 5 6 7 /.test(raw) && /lib_spin/.test(raw) &&
		/main/.test(raw), "the body is gzip and go tool pprof decodes " +
		"the known chain, symbolized on this host");
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
}

main().catch((e) => ok(false, e.stack)).finally(() => {
	server.close();
	fs.rmSync(tmp, { recursive: true, force: true });
	console.log("1.." + n);
	process.exit(failed ? 1 : 0);
});
