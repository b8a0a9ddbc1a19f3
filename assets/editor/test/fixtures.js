// Slides as the browser tests and Slides.com's API clients write them, and as the server
// stores them.

export const BLOCKS =
  '<section data-id="s1"><div class="sl-block" data-block-type="text" data-block-id="t1" style="left:80px;top:60px;width:600px;height:120px;z-index:1">' +
  '<div class="sl-block-content" style="font-size:48px;color:#222"><h2>Old heading</h2></div></div>' +
  '<div class="sl-block" data-block-type="text" data-block-id="t2" style="left:80px;top:220px;width:800px;height:200px;z-index:2">' +
  '<div class="sl-block-content" data-placeholder-tag="p"><p>Keep <strong>me</strong> exactly.</p></div></div>' +
  '<div class="sl-block" data-block-type="image" data-block-id="i1" style="left:900px;top:60px;width:300px;height:200px">' +
  '<div class="sl-block-content"><img src="https://images.example.org/logo.png" alt="Logo"></div></div></section>';

export const FREE = "<section><h1>Free <em>HTML</em></h1></section>";

/** Free HTML around blocks, nested divs, a comment and a script that mention "<div". */
export const MIXED =
  '<section class="intro" data-background-color="#fff">\n  <h2 title="a &amp; b">Mixed</h2>\n' +
  '<!-- <div class="sl-block"> in a comment -->' +
  '<div class="sl-block" data-block-type="html" data-block-id="h1" style="left: 10px; top: 20px; width: 30px; height: 40px;">' +
  '<div class="sl-block-content"><div><div>deep</div></div><script>if (a <div) {}</script></div></div>\n' +
  '<div class="columns"><div>not a block</div></div>' +
  '<div class="sl-block" data-block-type="code" data-block-id="c1" style="left:0px;top:0px;width:600px;height:240px">' +
  '<div class="sl-block-content"><pre><code class="language-rust" data-language="rust">fn main() {}</code></pre></div></div>' +
  "</section>";

export const INERT =
  '<section><meta http-equiv="refresh" content="0;url=/left-by-free-html">' +
  '<div class="sl-block" data-block-type="text" data-block-id="t1" style="left:80px;top:60px;width:400px;height:120px">' +
  '<div class="sl-block-content"><p>Hello</p><meta http-equiv="refresh" content="0;url=/left-by-block">' +
  '<form action="/logout" method="post"><button autofocus>Go</button></form></div></div></section>';

/** A state with the deck loaded and slide `html` open. */
export function stateWith(html, emptyState, openSlide, deckLoaded) {
  let state = emptyState();
  state = deckLoaded(state, { id: 7, title: "Deck", revision: 3, width: 960, height: 700, theme_color: "white", theme_font: "lato" }).after;
  return openSlide(state, "s1", html, "").after;
}
