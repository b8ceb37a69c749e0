/* stackid flame graph: lays out TREE (see flame.c) for the zoomed frame,
 * redrawn on every zoom and search. No external resources. */
var NS = "http://www.w3.org/2000/svg", W = 1200, FH = 17, PAD = 10,
	TOP = 58, BOTTOM = 34, CHAR = 7.2;
var svg = document.documentElement, frames = document.getElementById("frames");
var details = document.getElementById("details");
var matchedText = document.getElementById("matched");
var maxDepth = 0;
function build(a, parent, depth) {
	var n = { name: NAMES[a[0]], v: a[1], p: parent, d: depth, c: [] };
	if (depth > maxDepth) maxDepth = depth;
	for (var i = 0; i < a[2].length; i++) n.c.push(build(a[2][i], n, depth + 1));
	return n;
}
var root = build(TREE, null, 0), total = root.v || 1, zoomed = root, re = null;
var H = TOP + (maxDepth + 1) * FH + BOTTOM;
svg.setAttribute("height", H);
svg.setAttribute("viewBox", "0 0 " + W + " " + H);
document.getElementById("bg").setAttribute("height", H);
details.setAttribute("y", H - 12);
function pct(v) { return (100 * v / total).toFixed(2); }
function el(name, attrs) {
	var e = document.createElementNS(NS, name);
	for (var k in attrs) e.setAttribute(k, attrs[k]);
	return e;
}
/* Warm colours for user frames; blues for kernel frames (folded's _[k]). */
function color(name) {
	var h = 0;
	for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
	if (/_\[k\]$/.test(name))
		return "rgb(" + (60 + h % 60) + "," + (150 + (h >>> 8) % 60) + "," + (205 + (h >>> 16) % 50) + ")";
	return "rgb(" + (205 + h % 50) + "," + (80 + (h >>> 8) % 130) + "," + (40 + (h >>> 16) % 50) + ")";
}
function label(n) { return n.name + " (" + n.v + " samples, " + pct(n.v) + "%)"; }
function add(n, x, w, cls) {
	var g = el("g", { "class": cls, "data-name": n.name, "data-v": n.v });
	var y = H - BOTTOM - (n.d + 1) * FH;
	var t = el("title", {});
	t.textContent = label(n);
	g.appendChild(t);
	g.appendChild(el("rect", { x: x.toFixed(2), y: y, width: w.toFixed(2),
		height: FH - 1, rx: 2, fill: re && re.test(n.name) ? "rgb(230,0,230)" : color(n.name) }));
	var fit = Math.floor((w - 6) / CHAR), s = n.name;
	if (fit < 3) s = ""; else if (s.length > fit) s = s.substring(0, fit - 2) + "..";
	var tx = el("text", { x: (x + 3).toFixed(2), y: y + FH - 5 });
	tx.textContent = s;
	g.appendChild(tx);
	g.addEventListener("click", function (ev) { zoom(n); ev.stopPropagation(); });
	g.addEventListener("mouseover", function () { details.textContent = label(n); });
	g.addEventListener("mouseout", function () { details.textContent = " "; });
	frames.appendChild(g);
}
function draw() {
	while (frames.firstChild) frames.removeChild(frames.firstChild);
	var scale = (W - 2 * PAD) / zoomed.v;
	for (var a = zoomed.p; a; a = a.p) add(a, PAD, W - 2 * PAD, "f anc");
	(function lay(n, x) {
		var w = n.v * scale, cx = x;
		if (w < 0.5) return;
		add(n, x, w, "f");
		for (var i = 0; i < n.c.length; i++) { lay(n.c[i], cx); cx += n.c[i].v * scale; }
	})(zoomed, PAD);
	document.getElementById("unzoom").setAttribute("opacity", zoomed === root ? 0.2 : 1);
}
function zoom(n) { zoomed = n; draw(); }
/* Samples under frames whose name matches, each counted once. */
function matched(n) {
	if (re.test(n.name)) return n.v;
	var s = 0;
	for (var i = 0; i < n.c.length; i++) s += matched(n.c[i]);
	return s;
}
function search(term) {
	re = term ? new RegExp(term) : null;
	matchedText.textContent = re ? "Matched: " + pct(matched(root)) + "%" : "";
	draw();
	return re ? matched(root) : 0;
}
document.getElementById("unzoom").addEventListener("click", function () { zoom(root); });
document.getElementById("search").addEventListener("click", function () {
	if (re) { search(null); return; }
	var t = prompt("Search for (regular expression):", "");
	if (t) search(t);
});
window.addEventListener("keydown", function (e) {
	if ((e.ctrlKey || e.metaKey) && e.key === "f") {
		e.preventDefault();
		var t = prompt("Search for (regular expression):", "");
		if (t) search(t);
	} else if (e.key === "Escape") {
		search(null);
		zoom(root);
	}
});
draw();
