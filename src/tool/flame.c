// SPDX-License-Identifier: GPL-2.0
/*
 * --format svg: a self-contained interactive flame graph, built on the
 * folded aggregate (so it shows exactly the stacks --format folded
 * prints): the merged tree of stacks goes into the SVG as JSON, and the
 * inline script (flame.js, compiled in as FLAME_JS) lays it out, zooms
 * on a click, searches (Search button, Ctrl-F), shows a tooltip and a
 * details line with counts and percentages. Kernel frames (func_[k]) are
 * drawn in blues, user frames in warm colours. No external resource: it
 * opens in any browser, offline.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "flame_js.h"

/* A tree node: node 0 is the root, "all". */
struct node {
	uint32_t name, parent;
	uint64_t value;
	uint32_t *kids;
	unsigned int nkids;
};

struct flame {
	struct intern names;	/* frame names */
	struct intern edges;	/* (parent, name) -> node index - 1 */
	struct node *nodes;
	unsigned int n, cap;
};

static uint32_t name_of(struct flame *f, const char *s, size_t len)
{
	return intern_bytes(&f->names, s, len);
}

static uint32_t child(struct flame *f, uint32_t parent, uint32_t name)
{
	uint32_t key[2] = { parent, name };
	unsigned int n = f->edges.n, i = intern_bytes(&f->edges, key,
						     sizeof(key));

	if (f->edges.n == n)
		return i + 1;
	if (f->n == f->cap) {
		f->cap *= 2;
		f->nodes = xreallocarray(f->nodes, f->cap, sizeof(*f->nodes));
	}
	f->nodes[f->n] = (struct node){ .name = name, .parent = parent };
	return f->n++;
}

static void add_line(void *arg, const char *line, size_t len, uint64_t count)
{
	struct flame *f = arg;
	uint32_t cur = 0;
	size_t i = 0, j;

	f->nodes[0].value += count;
	while (i <= len) {
		for (j = i; j < len && line[j] != ';'; j++)
			;
		cur = child(f, cur, name_of(f, line + i, j - i));
		f->nodes[cur].value += count;
		i = j + 1;
	}
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct flame *f = arg;
	const struct node *x = &f->nodes[*(const uint32_t *)a];
	const struct node *y = &f->nodes[*(const uint32_t *)b];

	return strcmp(intern_str(&f->names, x->name),
		      intern_str(&f->names, y->name));
}

/*
 * A JSON string, safe inside CDATA and as UTF-8 XML, for any bytes: the
 * names come clean (decode.h), and whatever would not be (a byte
 * name_char_len() refuses) is escaped here all the same, as \u00NN.
 * '<', '>' and '&' are escaped too, so "]]>" never ends the CDATA
 * section; U+2028 and U+2029, line ends to older JavaScript, as well.
 */
static void json_str(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, k;

	sb_addc(sb, '"');
	for (i = 0; i < n; i += k) {
		unsigned char c = p[i];

		k = name_char_len(p + i, n - i);
		if (c == '"' || c == '\\') {
			sb_addc(sb, '\\');
			sb_addc(sb, c);
		} else if (!k || c == '<' || c == '>' || c == '&') {
			sb_addf(sb, "\\u%04x", c);
			k = 1;
		} else if (k == 3 && c == 0xe2 && p[i + 1] == 0x80 &&
			   (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			sb_addf(sb, "\\u%04x", 0x2000 | (p[i + 2] - 0x80));
		} else {
			sb_add(sb, s + i, k);
		}
	}
	sb_addc(sb, '"');
}

static void tree_json(struct flame *f, struct strbuf *sb, uint32_t i)
{
	const struct node *n = &f->nodes[i];
	unsigned int k;

	sb_addf(sb, "[%" PRIu32 ",%" PRIu64 ",[", n->name, n->value);
	for (k = 0; k < n->nkids; k++) {
		if (k)
			sb_addc(sb, ',');
		tree_json(f, sb, n->kids[k]);
	}
	sb_adds(sb, "]]");
}

/*
 * Text for XML character data: '<', '&' and '>' (so no "]]>") as
 * entities, characters name_char_len() refuses as '?'.
 */
static void xml_text(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i, k;

	for (i = 0; i < n; i += k) {
		k = name_char_len(p + i, n - i);
		if (p[i] == '<')
			sb_adds(sb, "&lt;");
		else if (p[i] == '&')
			sb_adds(sb, "&amp;");
		else if (p[i] == '>')
			sb_adds(sb, "&gt;");
		else if (!k)
			sb_addc(sb, '?');
		else
			sb_add(sb, s + i, k);
		if (!k)
			k = 1;
	}
}

static void write_svg(struct report *rp, struct flame *f)
{
	const struct capture_meta *m = &rp->meta;
	uint64_t dur = report_end_ns(rp) - rp->c->hdr.start_ns;
	struct strbuf sb = { 0 };
	unsigned int i;

	sb_adds(&sb,
"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
"<svg version=\"1.1\" width=\"1200\" height=\"400\" "
"xmlns=\"http://www.w3.org/2000/svg\">\n"
"<style>\n"
"text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
"g.anc rect { opacity: 0.5; }\n"
"#title { font-size: 17px; text-anchor: middle; }\n"
"#unzoom, #search { cursor: pointer; }\n"
"</style>\n"
"<rect id=\"bg\" x=\"0\" y=\"0\" width=\"1200\" height=\"400\" "
"fill=\"rgb(250,250,238)\"/>\n"
"<text id=\"title\" x=\"600\" y=\"24\">Flame graph: ");
	xml_text(&sb, rp->c->name);
	sb_adds(&sb, "</text>\n<text id=\"subtitle\" x=\"600\" y=\"42\" "
		"style=\"text-anchor: middle\">");
	sb_addf(&sb, "%" PRIu64 " samples", f->nodes[0].value);
	if (m->freq_hz)
		sb_addf(&sb, " at %" PRIu32 " Hz", m->freq_hz);
	sb_addf(&sb, " over %.1f s</text>\n", dur / 1e9);
	sb_adds(&sb,
"<text id=\"unzoom\" x=\"10\" y=\"24\" opacity=\"0.2\">Reset Zoom</text>\n"
"<text id=\"search\" x=\"1110\" y=\"24\">Search</text>\n"
"<text id=\"matched\" x=\"1110\" y=\"42\"></text>\n"
"<text id=\"details\" x=\"10\" y=\"390\"> </text>\n"
"<g id=\"frames\"></g>\n"
"<script type=\"text/ecmascript\"><![CDATA[\nvar NAMES = [");
	for (i = 0; i < f->names.n; i++) {
		if (i)
			sb_addc(&sb, ',');
		json_str(&sb, intern_str(&f->names, i),
			 intern_len(&f->names, i));
	}
	sb_adds(&sb, "];\nvar TREE = ");
	tree_json(f, &sb, 0);
	sb_adds(&sb, ";\n");
	sb_adds(&sb, FLAME_JS);
	sb_adds(&sb, "]]></script>\n</svg>\n");
	fwrite(sb.buf, 1, sb.len, rp->out);
	sb_free(&sb);
}

int flame_report(struct report *rp)
{
	struct flame f = { .cap = 1024 };
	unsigned int i;
	int ret;

	f.nodes = xcalloc(f.cap, sizeof(*f.nodes));
	f.n = 1;
	f.nodes[0].name = name_of(&f, "all", 3);
	ret = folded_each(rp, add_line, &f);
	/* children counted first: no array grown one by one */
	for (i = 1; i < f.n; i++)
		f.nodes[f.nodes[i].parent].nkids++;
	for (i = 0; i < f.n; i++) {
		if (f.nodes[i].nkids)
			f.nodes[i].kids = xcalloc(f.nodes[i].nkids,
						  sizeof(uint32_t));
		f.nodes[i].nkids = 0;
	}
	for (i = 1; i < f.n; i++) {
		struct node *p = &f.nodes[f.nodes[i].parent];

		p->kids[p->nkids++] = i;
	}
	for (i = 0; i < f.n; i++)
		if (f.nodes[i].nkids > 1)
			qsort_r(f.nodes[i].kids, f.nodes[i].nkids,
				sizeof(uint32_t), by_name, &f);
	write_svg(rp, &f);
	for (i = 0; i < f.n; i++)
		free(f.nodes[i].kids);
	free(f.nodes);
	intern_free(&f.names);
	intern_free(&f.edges);
	return ret;
}
