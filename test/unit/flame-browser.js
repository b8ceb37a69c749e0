// SPDX-License-Identifier: GPL-2.0
/*
 * flame-browser.js BUILD: the flame graph of the known-chain capture in
 * a real browser. Debian's headless chromium loads the SVG that
 * `stackid report --format svg` wrote; this script drives it over the
 * DevTools protocol on a pipe (--remote-debugging-pipe: fds 3 and 4,
 * NUL-separated JSON), with nothing but Node.js itself: it reads the
 * rendered frames through the DOM, checks names, widths, tooltips and
 * the search, clicks a frame with real mouse events and checks that the
 * zoom changed the widths, and fails on any error the page logged.
 * TAP on stdout.
 */
"use strict";
const { spawn, execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const build = path.resolve(process.argv[2] || "build");
const browser = process.env.CHROMIUM || "/usr/bin/chromium";
let n = 0, failed = 0;
function ok(cond, what) {
	n++;
	if (!cond) failed++;
	console.log(`${cond ? "" : "not "}ok ${n} - ${what}`);
	return cond;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "stackid-flame."));
const svg = path.join(tmp, "chain.svg");
const profile = path.join(tmp, "profile");
fs.mkdirSync(profile);

/* Chromium's helpers may still write its profile for a moment. */
function cleanup() {
	try {
		fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10,
			retryDelay: 100 });
	} catch (e) {
		console.log("# could not remove " + tmp + ": " + e.message);
	}
}

async function main() {
	execFileSync(path.join(build, "stackid"), ["report", "-i",
		path.join(build, "report-fix/chain.cap"), "-f", "svg", "-o", svg]);
	ok(fs.statSync(svg).size > 0, "report --format svg -o FILE wrote " +
		fs.statSync(svg).size + " bytes");
	if (!fs.existsSync(browser)) {
		ok(false, `${browser} not found: install Debian's chromium`);
		return;
	}
	const pending = new Map(), events = [];
	const proc = spawn(browser, ["--headless", "--no-sandbox",
		"--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--user-data-dir=" + profile,
		"--remote-debugging-pipe", "about:blank"],
		{ stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
	let stderr = "";
	proc.stderr.on("data", (d) => { stderr += d; });
	// a browser that dies fails what waits for it, with its last words
	const died = (why) => {
		for (const p of pending.values())
			p.reject(new Error(why + ": " + stderr.split("\n")
				.slice(-3).join(" | ")));
		pending.clear();
	};
	const exited = new Promise((res) => proc.on("exit", res));
	proc.on("exit", (code, sig) => died(`chromium exited (${code}, ${sig})`));
	proc.on("error", (e) => died("chromium: " + e.message));
	proc.stdio[3].on("error", (e) => died("pipe to chromium: " + e.message));
	proc.stdio[4].on("error", (e) => died("pipe from chromium: " + e.message));
	const killer = setTimeout(() => {
		ok(false, "browser test timed out after 60 s");
		proc.kill("SIGKILL");
	}, 60000);

	// The protocol: requests by id, events to listeners.
	let id = 0, buf = "";
	proc.stdio[4].on("data", (d) => {
		buf += d;
		let i;
		while ((i = buf.indexOf("\0")) >= 0) {
			const msg = JSON.parse(buf.slice(0, i));
			buf = buf.slice(i + 1);
			if (msg.id && pending.has(msg.id)) {
				const p = pending.get(msg.id);
				pending.delete(msg.id);
				if (msg.error) p.reject(new Error(JSON.stringify(msg.error)));
				else p.resolve(msg.result);
			} else if (msg.method) {
				events.push(msg);
			}
		}
	});
	function send(method, params = {}, sessionId) {
		const msg = { id: ++id, method, params };
		if (sessionId) msg.sessionId = sessionId;
		proc.stdio[3].write(JSON.stringify(msg) + "\0");
		return new Promise((resolve, reject) =>
			pending.set(msg.id, { resolve, reject }));
	}
	async function waitFor(pred, what) {
		for (let t = 0; t < 200; t++) {
			const e = events.find(pred);
			if (e) return e;
			await new Promise((r) => setTimeout(r, 50));
		}
		throw new Error("no " + what);
	}

	try {
		const { targetId } = await send("Target.createTarget",
			{ url: "about:blank" });
		const { sessionId } = await send("Target.attachToTarget",
			{ targetId, flatten: true });
		const s = (m, p) => send(m, p, sessionId);
		await s("Runtime.enable");
		await s("Log.enable");
		await s("Page.enable");
		await s("Page.navigate", { url: "file://" + svg });
		await waitFor((e) => e.method === "Page.loadEventFired" &&
			e.sessionId === sessionId, "load event");
		const ev = async (expr) => (await s("Runtime.evaluate",
			{ expression: expr, returnByValue: true })).result.value;
		const read = () => ev(`Array.from(document.querySelectorAll("g.f")).map(
			(g) => ({ name: g.getAttribute("data-name"),
				v: +g.getAttribute("data-v"),
				title: g.querySelector("title").textContent,
				w: g.querySelector("rect").getBoundingClientRect().width,
				x: g.querySelector("rect").getBoundingClientRect().x,
				y: g.querySelector("rect").getBoundingClientRect().y,
				h: g.querySelector("rect").getBoundingClientRect().height,
				text: g.querySelector("text").textContent }))`);

		const f = await read();
		const by = (fr, name) => fr.filter((x) => x.name === name);
		const chain = ["main", "app_a1", "app_a2", "app_a3", "lib_b1",
			"lib_b2", "lib_spin"];
		ok(f.length > 0 && chain.every((c) => by(f, c).length > 0) &&
			by(f, "all").length === 1,
			`rendered ${f.length} frames: all, ${chain.join(";")}`);
		const all = by(f, "all")[0], spin = by(f, "lib_spin")[0];
		const b2 = by(f, "lib_b2")[0];
		ok(all && spin && Math.abs(spin.w / all.w - 0.6) < 0.01 &&
			Math.abs(b2.w / all.w - 0.9) < 0.01,
			`widths: lib_spin ${(spin.w / all.w * 100).toFixed(1)}%, ` +
			`lib_b2 ${(b2.w / all.w * 100).toFixed(1)}% of all`);
		ok(spin.title === "lib_spin (60 samples, 60.00%)" &&
			all.title === "all (100 samples, 100.00%)",
			`tooltip: '${spin.title}'`);
		ok(spin.y < b2.y && b2.y < by(f, "main")[0].y,
			"flame order: callee above caller");
		ok(spin.text === "lib_spin", "frame label drawn: " + spin.text);

		// a real click in the middle of lib_b2
		const cx = b2.x + b2.w / 2, cy = b2.y + b2.h / 2;
		for (const type of ["mouseMoved", "mousePressed", "mouseReleased"])
			await s("Input.dispatchMouseEvent", { type, x: cx, y: cy,
				button: "left", clickCount: 1 });
		const details = await ev(`document.getElementById("details").textContent`);
		const z = await read();
		const zb2 = by(z, "lib_b2")[0], zspin = by(z, "lib_spin")[0];
		const zall = by(z, "all")[0];
		ok(zb2 && zspin && zall && Math.abs(zb2.w - all.w) < 1 &&
			Math.abs(zspin.w / zb2.w - 60 / 90) < 0.01 &&
			by(z, "other").length === 0,
			`click on lib_b2 zooms: it spans ${zb2 && zb2.w.toFixed(0)} ` +
			`px (was ${b2.w.toFixed(0)}), lib_spin ` +
			`${zspin && (zspin.w / zb2.w * 100).toFixed(1)}% of it, ` +
			"'other' gone");
		ok(details.startsWith("lib_b2 (90 samples, 90.00%)"),
			"details line on hover: " + details);

		const m = await ev(`search("^app_a"), document.getElementById("matched").textContent`);
		const fills = await ev(`Array.from(document.querySelectorAll("g.f")).filter(
			(g) => g.querySelector("rect").getAttribute("fill") === "rgb(230,0,230)"
			).map((g) => g.getAttribute("data-name")).sort().join(",")`);
		ok(m === "Matched: 100.00%" && fills === "app_a1,app_a2,app_a3",
			`search ^app_a: '${m}', highlighted ${fills}`);

		await ev(`zoom(root)`);
		const back = await read();
		ok(Math.abs(by(back, "lib_b2")[0].w - b2.w) < 0.5,
			"reset zoom: widths as at first");

		const errs = events.filter((e) =>
			e.method === "Runtime.exceptionThrown" ||
			(e.method === "Runtime.consoleAPICalled" &&
			 (e.params.type === "error" || e.params.type === "warning")) ||
			(e.method === "Log.entryAdded" &&
			 e.params.entry.level === "error"));
		ok(errs.length === 0, "the page logged no errors" +
			(errs.length ? ": " + JSON.stringify(errs[0].params).slice(0, 300) : ""));
		await send("Browser.close").catch(() => {});
		await Promise.race([exited,
			new Promise((res) => setTimeout(res, 5000))]);
	} catch (e) {
		ok(false, "browser: " + e.message);
		if (stderr) console.log("# " + stderr.split("\n").slice(-5).join("\n# "));
	} finally {
		clearTimeout(killer);
		proc.kill("SIGKILL");
	}
}

process.on("uncaughtException", (e) => {
	ok(false, "uncaught: " + e.message);
	cleanup();
	process.exit(1);
});
main().catch((e) => ok(false, e.message)).finally(() => {
	cleanup();
	console.log("1.." + n);
	process.exit(failed ? 1 : 0);
});
