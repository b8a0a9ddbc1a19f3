//! Decks as cards, the one way every page lists decks (the home page's tabs, profiles, team
//! pages): the thumbnail and title link to the deck, then small badges, a line of facts, the
//! description and the actions; and a paged list of them.

use lectern_core::params::PageMeta;

use crate::web::page::escape;

/// One deck card. `badges`, `facts` and `actions` are HTML made by the caller (escaped
/// there); the other fields are text.
#[derive(Default)]
pub struct Card<'a> {
    pub url: &'a str,
    pub thumbnail: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    pub badges: String,
    pub facts: String,
    pub actions: String,
}

impl Card<'_> {
    pub fn html(&self) -> String {
        let title = if self.title.trim().is_empty() {
            "Untitled"
        } else {
            self.title
        };
        let mut html = format!(
            "<li class=\"deck-card\"><a href=\"{url}\" tabindex=\"-1\" aria-hidden=\"true\">\
             <img src=\"{thumb}\" alt=\"\" width=\"320\" height=\"180\" loading=\"lazy\"></a>\
             <div class=\"body\"><a class=\"title\" href=\"{url}\">{title}</a>",
            url = escape(self.url),
            thumb = escape(self.thumbnail),
            title = escape(title),
        );
        if !self.badges.is_empty() {
            html.push_str(&format!("<div>{}</div>", self.badges));
        }
        if !self.facts.is_empty() {
            html.push_str(&format!("<div class=\"meta\">{}</div>", self.facts));
        }
        if !self.description.is_empty() {
            html.push_str(&format!("<p>{}</p>", escape(self.description)));
        }
        if !self.actions.is_empty() {
            html.push_str(&format!("<div class=\"actions\">{}</div>", self.actions));
        }
        html.push_str("</div></li>");
        html
    }
}

/// A badge (visibility, "trashed").
pub fn badge(text: &str) -> String {
    format!("<span class=\"badge\">{}</span>", escape(text))
}

/// The cards and links to the newer and older pages (`?{query}page=N`, `query` being the
/// other parameters with a trailing `&`, or empty); `empty` when the first page has none.
pub fn deck_list(cards: Vec<String>, meta: &PageMeta, query: &str, empty: &str) -> String {
    if cards.is_empty() && meta.page == 1 {
        return format!("<p class=\"muted\">{}</p>", escape(empty));
    }
    let mut html = format!(
        "<ul class=\"deck-cards\" aria-label=\"Decks\">{}</ul>",
        cards.concat()
    );
    let mut nav = Vec::new();
    if meta.page > 1 {
        nav.push(format!(
            "<a rel=\"prev\" class=\"button secondary\" href=\"?{query}page={}\">Newer</a>",
            meta.page - 1
        ));
    }
    if (meta.page as i64) * (meta.per_page as i64) < meta.total {
        nav.push(format!(
            "<a rel=\"next\" class=\"button secondary\" href=\"?{query}page={}\">Older</a>",
            meta.page + 1
        ));
    }
    if !nav.is_empty() {
        html.push_str(&format!("<nav class=\"pager\">{}</nav>", nav.join(" ")));
    }
    html
}
