// Typesets the book's formulas with Temml (npm, pinned in package-lock.json): TeX in, MathML Core out.
// sitegen/markdown/mathml.py runs this once per build with every formula of the book: a JSON list of
// [tex, display] on stdin, a JSON list on stdout with, for each, {"mathml": "<math>…</math>"} or
// {"error": "what Temml could not read", "position": index into the TeX or null}.
import temml from "temml";

let input = "";
for await (const chunk of process.stdin) input += chunk;

const answers = JSON.parse(input).map(([tex, display]) => {
  try {
    // Temml runs untrusted (no \href, \htmlClass, \includegraphics) and stops macro expansion after
    // 1,000 steps, so no formula can make it loop.
    const mathml = temml.renderToString(tex, {
      displayMode: display,
      throwOnError: true,
      trust: false,
      strict: false,
      wrap: "tex",
      maxExpand: 1000,
    });
    return { mathml };
  } catch (error) {
    // A ParseError's message is "<what> at position N: <context>"; keep <what> and N.
    const text = String(error && error.message !== undefined ? error.message : error).trim();
    const what = text.split(/ at (?:position \d+|end of input):/)[0].trim();
    const position = error && typeof error.position === "number" ? error.position : null;
    return { error: error && error.name === "ParseError" ? what : `${error.name || "Error"}: ${what}`, position };
  }
});
process.stdout.write(JSON.stringify(answers));
