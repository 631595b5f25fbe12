// The kitchen-sink book's rendering, checked inside the page by Chromium, Firefox and WebKit alike
// (tests/browsers/flows.py reads this file; the drivers call it and fail on what it returns).
// One function expression: it returns a list of problems, empty when
//   - formulas are laid out as MathML: each has a box, an exponent sits raised, a fraction stacked,
//     a displayed one is a block with its formula centred;
//   - images loaded, at their natural size in the box the build gave them (width, height from the file);
//   - what is wider than the column (a table, a code line) scrolls inside its own box, a tab stop;
//   - and the page itself never scrolls sideways.
() => {
  const problems = [];
  const box = (element) => element.getBoundingClientRect();
  const formulas = [...document.querySelectorAll("math")];
  if (formulas.length === 0) problems.push("the page holds no formula");
  for (const math of formulas) {
    if (!(box(math).width > 0 && box(math).height > 0)) problems.push(`the formula "${math.textContent}" has no size`);
  }
  for (const power of document.querySelectorAll("msup")) {
    const [base, exponent] = power.children;
    if (!(box(exponent).bottom < box(base).bottom - 1)) {
      problems.push(`the exponent of "${power.textContent}" is not raised: the MathML is not laid out`);
    }
  }
  for (const fraction of document.querySelectorAll("mfrac")) {
    const [top, bottom] = fraction.children;
    if (!(box(top).bottom <= box(bottom).top + 1)) problems.push(`the fraction "${fraction.textContent}" is not stacked`);
  }
  for (const math of document.querySelectorAll('math[display="block"]')) {
    const display = getComputedStyle(math).display;
    if (!display.startsWith("block")) problems.push(`a displayed formula is laid out as "${display}", not a block`);
    const [formula, column] = [box(math.firstElementChild), box(math.parentElement)];
    const off = (formula.left + formula.right) / 2 - (column.left + column.right) / 2;
    if (formula.width < column.width && Math.abs(off) > 2) problems.push(`a displayed formula is ${off} px off centre`);
  }
  for (const image of document.images) {
    const name = image.alt || "(decorative)";
    const [width, height] = [Number(image.getAttribute("width")), Number(image.getAttribute("height"))];
    if (!image.complete || image.naturalWidth === 0) {
      problems.push(`the image "${name}" did not load`);
      continue;
    }
    const shown = box(image);
    if (shown.width > width + 0.5 || Math.abs(shown.width / shown.height - width / height) > 0.02 * (width / height)) {
      problems.push(`the image "${name}" is shown ${shown.width} × ${shown.height}, not in its ${width} × ${height} box`);
    }
    const drawn = /^data:image\/svg|\.svg$/.test(image.getAttribute("src"));
    const natural = image.naturalWidth / image.naturalHeight;
    if (drawn ? Math.abs(natural - width / height) > 0.02 * natural
              : image.naturalWidth !== width || image.naturalHeight !== height) {
      problems.push(`the image "${name}" is ${image.naturalWidth} × ${image.naturalHeight}, its box ${width} × ${height}`);
    }
  }
  const boxes = [...document.querySelectorAll(".table-scroll, pre.code, .math-display")];
  for (const kind of [".table-scroll", "pre.code"]) {
    const scrolling = boxes.filter((element) => element.matches(kind) && element.scrollWidth > element.clientWidth);
    if (scrolling.length === 0) problems.push(`no ${kind} is wider than the column: the fixture should have one`);
  }
  for (const element of boxes.filter((element) => element.scrollWidth > element.clientWidth)) {
    element.scrollLeft = element.scrollWidth;
    if (element.scrollLeft === 0) problems.push(`a ${element.className} wider than the column does not scroll`);
    element.scrollLeft = 0;
    if (element.tabIndex !== 0) problems.push(`a ${element.className} that scrolls is not a tab stop`);
  }
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth) {
    problems.push(`the page scrolls sideways: ${page.scrollWidth} px of content in ${page.clientWidth} px`);
  }
  return problems;
}
