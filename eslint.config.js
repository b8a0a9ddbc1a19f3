// ESLint's flat configuration: the deck editor's modules (assets/editor/) and the slide
// drawing (assets/slides/), for browsers,
// and their unit tests, for Node. Run by scripts/test.sh: npx --no-install eslint assets/editor assets/slides
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  js.configs.recommended,
  {
    files: ["assets/editor/**/*.js", "assets/slides/**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: globals.browser,
    },
    rules: {
      "no-unused-vars": ["error", { caughtErrors: "none" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["assets/editor/test/**/*.js", "assets/slides/test/**/*.js"],
    languageOptions: { globals: globals.node },
  },
];
