// The functions of JavaScript files, as tests/test_function_length.py checks them:
//   node function_lengths.mjs FILE...
// prints one JSON array: per function with a block body (declarations, expressions, methods,
// arrows with braces), {path, line, name, lines, comment}, where `comment` is the text of the
// comment lines right above the line it starts on. Acorn (package.json) parses: a brace in a
// string, a template or a regular expression is not a block.
import { readFileSync } from "node:fs";
import { parse } from "acorn";

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

function parsed(path, text) {
  const comments = [];
  const options = { ecmaVersion: "latest", locations: true, onComment: comments };
  const types = path.endsWith(".mjs") ? ["module"] : ["script", "module"];
  for (const [index, sourceType] of types.entries()) {
    comments.length = 0;
    try {
      return { tree: parse(text, { ...options, sourceType }), comments };
    } catch (error) {
      if (index === types.length - 1) throw new Error(`${path}:${error.loc?.line ?? 1}: ${error.message}`);
    }
  }
}

// What a reader calls the function: its own name, or the name it is given (variable, property,
// method, assignment), else where it is passed.
function nameOf(node, parent) {
  if (node.id) return node.id.name;
  const key = parent?.key ?? parent?.id ?? parent?.left;
  if (key?.type === "Identifier" || key?.type === "PrivateIdentifier") return key.name;
  if (key?.type === "Literal") return String(key.value);
  if (key?.type === "MemberExpression" && !key.computed) return key.property.name;
  return "anonymous function";
}

// The comment lines that end right above `line`, joined (a run of // lines or one block comment).
function commentAbove(comments, line) {
  const byEnd = new Map(comments.map((comment) => [comment.loc.end.line, comment]));
  const found = [];
  for (let above = line - 1; byEnd.has(above); ) {
    const comment = byEnd.get(above);
    found.unshift(comment.value);
    above = comment.loc.start.line - 1;
  }
  return found.join("\n");
}

function* walk(node, parent) {
  if (FUNCTIONS.has(node.type) && node.body.type === "BlockStatement") yield [node, parent];
  for (const value of Object.values(node)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child && typeof child.type === "string") yield* walk(child, node);
    }
  }
}

const found = [];
for (const path of process.argv.slice(2)) {
  const { tree, comments } = parsed(path, readFileSync(path, "utf8"));
  for (const [node, parent] of walk(tree, null)) {
    const line = node.loc.start.line;
    const lines = node.loc.end.line - line + 1;
    found.push({ path, line, name: nameOf(node, parent), lines, comment: commentAbove(comments, line) });
  }
}
process.stdout.write(JSON.stringify(found));
