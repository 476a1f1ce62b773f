// SPDX-License-Identifier: Apache-2.0
// RhinoWork.js: object-heavy JavaScript for Debian's Rhino (bench/run.sh workload "rhino").
//
//   rhino RhinoWork.js [ROUNDS (default 1)] [SCALE (default 1)]
//
// Each round runs three small programs that allocate many short-lived objects and make many
// small calls, as scripting engines do: a JSON round trip of nested records, an interpreter
// of a tiny language (tokens, AST nodes, environments and closures as objects) and a ray
// tracer over vector objects. Each round prints "round N: MS ms"; the last line holds a
// checksum that is the same on every run.

var ROUNDS = arguments.length > 0 ? parseInt(arguments[0], 10) : 1;
var SCALE = arguments.length > 1 ? parseInt(arguments[1], 10) : 1;

// --- JSON: build records, stringify, parse, aggregate ------------------------------------
function makeRecord(i) {
  var tags = [];
  for (var t = 0; t < 4; t++) tags.push("t" + ((i * 7 + t) % 13));
  return { id: i, name: "item-" + i, price: (i % 97) * 1.25, tags: tags,
           owner: { id: i % 31, region: ["north", "south", "east", "west"][i % 4] } };
}

function jsonWork(n) {
  var records = [];
  for (var i = 0; i < n; i++) records.push(makeRecord(i));
  var back = JSON.parse(JSON.stringify(records));
  var byRegion = {};
  var sum = 0;
  for (var j = 0; j < back.length; j++) {
    var r = back[j];
    byRegion[r.owner.region] = (byRegion[r.owner.region] || 0) + r.price;
    sum += r.tags.length + r.name.length;
  }
  return Math.round(sum + byRegion.north + byRegion.east);
}

// --- an interpreter of a tiny expression language ----------------------------------------
function tokenize(src) {
  var tokens = [], i = 0;
  while (i < src.length) {
    var c = src.charAt(i);
    if (c === " " || c === "\n") { i++; continue; }
    if (/[0-9]/.test(c)) {
      var j = i;
      while (j < src.length && /[0-9]/.test(src.charAt(j))) j++;
      tokens.push({ kind: "num", value: parseInt(src.substring(i, j), 10) }); i = j; continue;
    }
    if (/[a-z]/.test(c)) {
      var k = i;
      while (k < src.length && /[a-z]/.test(src.charAt(k))) k++;
      tokens.push({ kind: "name", value: src.substring(i, k) }); i = k; continue;
    }
    tokens.push({ kind: "op", value: c }); i++;
  }
  return tokens;
}

function Parser(tokens) { this.tokens = tokens; this.pos = 0; }
Parser.prototype.peek = function () { return this.tokens[this.pos]; };
Parser.prototype.next = function () { return this.tokens[this.pos++]; };
Parser.prototype.expect = function (v) {
  var t = this.next();
  if (!t || t.value !== v) throw new Error("expected " + v);
};
// expr := "if" expr "then" expr "else" expr | "fn" name "=>" expr | sum
Parser.prototype.expr = function () {
  var t = this.peek();
  if (t.kind === "name" && t.value === "if") {
    this.next();
    var c = this.expr(); this.expect("then");
    var a = this.expr(); this.expect("else");
    return { type: "if", cond: c, then: a, otherwise: this.expr() };
  }
  if (t.kind === "name" && t.value === "fn") {
    this.next();
    var p = this.next().value; this.expect("=");
    return { type: "fn", param: p, body: this.expr() };
  }
  return this.compare();
};
Parser.prototype.compare = function () {
  var left = this.sum();
  var t = this.peek();
  if (t && t.value === "<") { this.next(); return { type: "bin", op: "<", left: left, right: this.sum() }; }
  return left;
};
Parser.prototype.sum = function () {
  var left = this.call();
  for (var t = this.peek(); t && (t.value === "+" || t.value === "-"); t = this.peek()) {
    this.next();
    left = { type: "bin", op: t.value, left: left, right: this.call() };
  }
  return left;
};
Parser.prototype.call = function () {
  var f = this.atom();
  for (var t = this.peek(); t && t.value === "("; t = this.peek()) {
    this.next();
    var arg = this.expr(); this.expect(")");
    f = { type: "call", fn: f, arg: arg };
  }
  return f;
};
Parser.prototype.atom = function () {
  var t = this.next();
  if (t.kind === "num") return { type: "num", value: t.value };
  if (t.kind === "name") return { type: "var", name: t.value };
  if (t.value === "(") { var e = this.expr(); this.expect(")"); return e; }
  throw new Error("unexpected " + t.value);
};

function Env(name, value, parent) { this.name = name; this.value = value; this.parent = parent; }
Env.prototype.lookup = function (name) {
  for (var e = this; e; e = e.parent) if (e.name === name) return e.value;
  throw new Error("unbound " + name);
};

function evaluate(node, env) {
  switch (node.type) {
    case "num": return node.value;
    case "var": return env.lookup(node.name);
    case "fn": return { param: node.param, body: node.body, env: env };
    case "if": return evaluate(node.cond, env) ? evaluate(node.then, env) : evaluate(node.otherwise, env);
    case "call":
      var f = evaluate(node.fn, env);
      if (typeof f === "function") return f(evaluate(node.arg, env));
      return evaluate(f.body, new Env(f.param, evaluate(node.arg, env), f.env));
    case "bin":
      var a = evaluate(node.left, env), b = evaluate(node.right, env);
      return node.op === "+" ? a + b : node.op === "-" ? a - b : (a < b ? 1 : 0);
  }
  throw new Error("bad node " + node.type);
}

// fib through a fixpoint combinator: every call makes environments and closures.
var FIB = "(fn f = (fn x = f(fn v = x(x)(v)))(fn x = f(fn v = x(x)(v))))" +
          "(fn fib = fn n = if n < 2 then n else fib(n - 1) + fib(n - 2))";

function interpWork(n) {
  var total = 0;
  for (var i = 0; i < n; i++) {
    var ast = new Parser(tokenize(FIB)).expr();
    var fib = evaluate(ast, new Env("unused", 0, null));
    total += evaluate({ type: "call", fn: { type: "var", name: "fib" }, arg: { type: "num", value: 14 + (i % 3) } },
                      new Env("fib", fib, null));
  }
  return total;
}

// --- a ray tracer over vector objects ----------------------------------------------------
function V(x, y, z) { this.x = x; this.y = y; this.z = z; }
V.prototype.add = function (o) { return new V(this.x + o.x, this.y + o.y, this.z + o.z); };
V.prototype.sub = function (o) { return new V(this.x - o.x, this.y - o.y, this.z - o.z); };
V.prototype.mul = function (k) { return new V(this.x * k, this.y * k, this.z * k); };
V.prototype.dot = function (o) { return this.x * o.x + this.y * o.y + this.z * o.z; };
V.prototype.norm = function () { return this.mul(1 / Math.sqrt(this.dot(this))); };

function Sphere(center, radius, shade) { this.center = center; this.radius = radius; this.shade = shade; }
Sphere.prototype.hit = function (origin, dir) {
  var oc = origin.sub(this.center);
  var b = oc.dot(dir), c = oc.dot(oc) - this.radius * this.radius;
  var disc = b * b - c;
  if (disc < 0) return null;
  var t = -b - Math.sqrt(disc);
  return t > 1e-4 ? { t: t, sphere: this } : null;
};

function trace(scene, origin, dir, depth) {
  var best = null;
  for (var i = 0; i < scene.length; i++) {
    var h = scene[i].hit(origin, dir);
    if (h && (!best || h.t < best.t)) best = h;
  }
  if (!best) return 0.1;
  var point = origin.add(dir.mul(best.t));
  var normal = point.sub(best.sphere.center).norm();
  var light = Math.max(0, normal.dot(new V(0.577, 0.577, -0.577)));
  if (depth > 0) {
    var refl = dir.sub(normal.mul(2 * dir.dot(normal)));
    light += 0.3 * trace(scene, point, refl.norm(), depth - 1);
  }
  return light * best.sphere.shade;
}

function rayWork(size) {
  var scene = [];
  for (var i = 0; i < 6; i++) scene.push(new Sphere(new V(i - 2.5, (i % 3) - 1, 6 + i % 2), 0.9, 0.5 + i / 12));
  var eye = new V(0, 0, 0), sum = 0;
  for (var y = 0; y < size; y++) {
    for (var x = 0; x < size; x++) {
      var dir = new V((x - size / 2) / size, (y - size / 2) / size, 1).norm();
      sum += trace(scene, eye, dir, 2);
    }
  }
  return Math.round(sum * 1000);
}

var checksum = 0;
for (var r = 1; r <= ROUNDS; r++) {
  var start = Date.now();
  checksum = jsonWork(20000 * SCALE) + interpWork(12 * SCALE) + rayWork(90 * SCALE);
  print("round " + r + ": " + (Date.now() - start) + " ms");
}
print("RhinoWork done: rounds=" + ROUNDS + " scale=" + SCALE + " checksum=" + checksum);
