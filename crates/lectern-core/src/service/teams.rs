//! Team decks (interface 4.7) and deck search across the caller's own and team decks.

use super::*;

impl Lectern {
    /// The caller's team, or 403 for an account without one.
    pub(crate) async fn caller_team(&self, caller: &Caller) -> Result<TeamRecord> {
        let forbidden = || Error::forbidden("this account is not in a team");
        let team_id = caller.team_id.ok_or_else(forbidden)?;
        self.store.get_team(team_id).await?.ok_or_else(forbidden)
    }

    /// `list_team_decks` (4.7): the team members' `team` and `all` decks, newest first.
    pub async fn list_team_decks(
        &self,
        caller: &Caller,
        paging: Paging,
    ) -> Result<Page<TeamDeckSummary>> {
        caller.require(Scope::Read)?;
        let team = self.caller_team(caller).await?;
        let (rows, total) = self.store.list_team_decks(team.id, false, paging).await?;
        Ok(Page {
            items: self.team_deck_summaries(&team, rows),
            meta: paging.meta(total),
        })
    }

    /// Team deck summaries with their team addresses.
    pub(crate) fn team_deck_summaries(
        &self,
        team: &TeamRecord,
        rows: Vec<crate::store::TeamDeckListRecord>,
    ) -> Vec<TeamDeckSummary> {
        let base = self.team_url(&team.slug);
        rows.into_iter()
            .map(|d| TeamDeckSummary {
                url: format!("{base}/{}/{}", d.owner_username, d.slug),
                thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                id: d.id,
                title: d.title,
                description: d.description,
                visibility: d.visibility,
                owner: OwnerView {
                    id: d.owner_id,
                    name: d.owner_name,
                    username: d.owner_username,
                },
                revision: d.revision,
            })
            .collect()
    }

    /// `search_decks` (MCP): the caller's own decks outside the trash and their team's
    /// `team` and `all` decks whose title or slide HTML contains `query` (case-insensitive).
    pub async fn search_decks(
        &self,
        caller: &Caller,
        query: &str,
        paging: Paging,
    ) -> Result<Page<DeckSearchHit>> {
        caller.require(Scope::Read)?;
        let query = query.trim();
        if query.is_empty() || query.chars().count() > MAX_SEARCH_CHARS {
            return Err(Error::invalid(format!(
                "query must be 1 to {MAX_SEARCH_CHARS} characters"
            )));
        }
        let team = match caller.team_id {
            Some(id) => self.store.get_team(id).await?,
            None => None,
        };
        let (rows, total) = self
            .store
            .search_decks(caller.user_id, team.as_ref().map(|t| t.id), query, paging)
            .await?;
        let items = rows
            .into_iter()
            .map(|r| {
                let d = r.deck;
                let own = d.owner_id == caller.user_id;
                let url = match (&team, own) {
                    (Some(team), false) => format!(
                        "{}/{}/{}",
                        self.team_url(&team.slug),
                        d.owner_username,
                        d.slug
                    ),
                    _ => self.deck_url(&d.owner_username, &d.slug),
                };
                DeckSearchHit {
                    thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                    id: d.id,
                    title: d.title,
                    description: d.description,
                    url,
                    visibility: d.visibility,
                    owner: d.owner_name,
                    own,
                    matched_in: if r.title_matched { "title" } else { "slides" },
                }
            })
            .collect();
        Ok(Page {
            items,
            meta: paging.meta(total),
        })
    }

    /// `get_team_deck` (4.7). A `self` deck, another team's deck, a trashed one and a missing
    /// one all answer 404.
    pub async fn get_team_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        include_deck_html: bool,
    ) -> Result<TeamDeckView> {
        caller.require(Scope::Read)?;
        let team = self.caller_team(caller).await?;
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let deck = self
            .store
            .get_team_deck(team.id, id)
            .await?
            .ok_or_else(Error::deck_not_found)?;
        let deck_html = if include_deck_html {
            Some(deck_html(
                &self.store.deck_slides_html(deck.id, None).await?,
            ))
        } else {
            None
        };
        let owner = OwnerView {
            id: deck.owner_id,
            name: deck.owner_name.clone(),
            username: deck.owner_username.clone(),
        };
        Ok(TeamDeckView {
            deck: DeckView {
                meta: self.deck_meta_at(&deck, &self.team_url(&team.slug)),
                css: deck.css,
                deck_html,
            },
            owner,
        })
    }
}
