//! The deck operations (interface 4.3): lists, create (and import), get, update, trash and
//! recover; the deck views and URLs; the deck HTML of all slides.

use super::*;

impl Lectern {
    /// `list_decks` (4.3): the caller's decks outside the trash, newest first.
    pub async fn list_decks(&self, caller: &Caller, paging: Paging) -> Result<Page<DeckSummary>> {
        caller.require(Scope::Read)?;
        let (rows, total) = self
            .store
            .list_decks(caller.user_id, DeckListKind::Active, paging)
            .await?;
        Ok(Page {
            items: rows
                .into_iter()
                .map(|d| DeckSummary {
                    url: self.deck_url(&caller.username, &d.slug),
                    thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                    id: d.id,
                    title: d.title,
                    description: d.description,
                    revision: d.revision,
                })
                .collect(),
            meta: paging.meta(total),
        })
    }

    /// `list_trashed_decks` (4.3): the caller's trashed decks, most recently trashed first.
    pub async fn list_trashed_decks(
        &self,
        caller: &Caller,
        paging: Paging,
    ) -> Result<Page<TrashedDeckSummary>> {
        caller.require(Scope::Read)?;
        let (rows, total) = self
            .store
            .list_decks(caller.user_id, DeckListKind::Trashed, paging)
            .await?;
        let items = rows
            .into_iter()
            .map(|d| TrashedDeckSummary {
                thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
                id: d.id,
                title: d.title,
                description: d.description,
                trashed_at: d
                    .trashed_at
                    .expect("the store lists only decks with trashed_at set as trashed"),
                revision: d.revision,
            })
            .collect();
        Ok(Page {
            items,
            meta: paging.meta(total),
        })
    }

    /// `create_deck` (4.3).
    pub async fn create_deck(&self, caller: &Caller, mut new: NewDeck) -> Result<CreatedDeck> {
        caller.require(Scope::Manage)?;
        self.check_visibility(caller, new.visibility)?;
        let stacks = std::mem::take(&mut new.slides)
            .into_iter()
            .map(|s| vec![s])
            .collect();
        let (record, slide_ids) = self.insert_deck(&caller.author(), new, stacks).await?;
        Ok(CreatedDeck {
            meta: self.deck_meta(&record),
            slide_ids,
        })
    }

    /// Stores a deck whose slides come as stacks (one slide, or a vertical group).
    pub(crate) async fn insert_deck(
        &self,
        author: &Author,
        new: NewDeck,
        stacks: Vec<Vec<NewSlide>>,
    ) -> Result<(DeckRecord, Vec<String>)> {
        let sizes: Vec<usize> = stacks.iter().map(Vec::len).collect();
        let slides: Vec<NewSlideRecord> = stacks
            .into_iter()
            .flatten()
            .zip(layout::initial_slots(&sizes))
            .map(|(s, (rank, group))| {
                new_slide_record(new_slide_id(), s.html, s.notes, rank, group)
            })
            .collect();
        let slide_ids = slides.iter().map(|s| s.slot.id.clone()).collect();
        let record = self
            .store
            .create_deck(
                NewDeckRecord {
                    owner_id: author.user_id,
                    slug_base: slugify(&new.title),
                    title: new.title,
                    description: new.description,
                    visibility: new.visibility,
                    look: new.look,
                    css: new.css,
                    slides,
                    created_at: Timestamp::now(),
                },
                author,
            )
            .await?;
        Ok((record, slide_ids))
    }

    /// `get_deck` (4.3). A trashed deck, a missing one and another account's all answer 404.
    pub async fn get_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        include_deck_html: bool,
    ) -> Result<DeckView> {
        let deck = self.readable_deck(caller, deck_id).await?;
        self.deck_view(&deck, include_deck_html).await
    }

    /// `get_deck`'s first half: the caller's deck as stored, or 404 as `get_deck` answers it.
    pub async fn readable_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<DeckRecord> {
        caller.require(Scope::Read)?;
        self.active_deck(caller, deck_id).await
    }

    /// `get_deck`'s second half: what it shows of `deck` (from [`Lectern::readable_deck`]).
    /// Without `deck_html` the view depends on the record alone (and this server's public
    /// URL), so an answer kept beside an equal record is still the answer.
    pub async fn deck_view(&self, deck: &DeckRecord, include_deck_html: bool) -> Result<DeckView> {
        let deck_html = if include_deck_html {
            Some(deck_html(
                &self.store.deck_slides_html(deck.id, None).await?,
            ))
        } else {
            None
        };
        Ok(DeckView {
            meta: self.deck_meta(deck),
            css: deck.css.clone(),
            deck_html,
        })
    }

    /// `update_deck` (4.3).
    pub async fn update_deck(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        patch: DeckPatch,
        precondition: Option<Precondition>,
    ) -> Result<DeckMeta> {
        caller.require(Scope::Manage)?;
        if let Some(v) = patch.visibility {
            self.check_visibility(caller, v)?;
        }
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let deck = self
            .store
            .update_deck(
                caller.user_id,
                id,
                &patch,
                Timestamp::now(),
                &write_context(caller, precondition),
            )
            .await?
            .ok_or_else(Error::deck_not_found)?;
        Ok(self.deck_meta(&deck))
    }

    /// `trash_deck` (3.1). Trashing a deck already in the trash changes nothing.
    pub async fn trash_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<()> {
        caller.require(Scope::Manage)?;
        self.set_trashed(caller, deck_id, Some(Timestamp::now()))
            .await
    }

    /// `recover_deck` (3.1). Recovering a deck that is not in the trash changes nothing.
    pub async fn recover_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<()> {
        caller.require(Scope::Manage)?;
        self.set_trashed(caller, deck_id, None).await
    }

    pub(crate) async fn set_trashed(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        at: Option<Timestamp>,
    ) -> Result<()> {
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        let author = caller.author();
        if self
            .store
            .set_deck_trashed(caller.user_id, id, at, &author)
            .await?
        {
            Ok(())
        } else {
            Err(Error::deck_not_found())
        }
    }

    /// The caller's deck outside the trash, or 404.
    pub(crate) async fn active_deck(&self, caller: &Caller, deck_id: DeckId) -> Result<DeckRecord> {
        let id = deck_id.stored().ok_or_else(Error::deck_not_found)?;
        match self.store.get_deck(caller.user_id, id).await? {
            Some(d) if d.trashed_at.is_none() => Ok(d),
            _ => Err(Error::deck_not_found()),
        }
    }

    /// `team` visibility needs a team account (403 otherwise, see docs/API-NOTES.md).
    pub(crate) fn check_visibility(&self, caller: &Caller, visibility: Visibility) -> Result<()> {
        if visibility == Visibility::Team && caller.team_id.is_none() {
            return Err(Error::forbidden(
                "visibility 'team' is only available to team accounts",
            ));
        }
        Ok(())
    }

    /// A deck's thumbnail: its drawn first slide, or the generic image until one exists.
    pub(crate) fn thumbnail_url(&self, token: Option<&str>) -> String {
        match token {
            Some(t) => format!("{}/thumbnails/{t}.png", self.public_url),
            None => format!("{}/assets/web/thumbnail.svg", self.public_url),
        }
    }

    pub(crate) fn deck_url(&self, owner_username: &str, slug: &str) -> String {
        format!("{}/{}/{}", self.public_url, owner_username, slug)
    }

    pub(crate) fn deck_meta(&self, d: &DeckRecord) -> DeckMeta {
        self.deck_meta_at(d, &self.public_url)
    }

    /// The deck's metadata with its URLs under `base` (the public URL, or a team's URL).
    pub(crate) fn deck_meta_at(&self, d: &DeckRecord, base: &str) -> DeckMeta {
        let url = format!("{base}/{}/{}", d.owner_username, d.slug);
        DeckMeta {
            id: d.id,
            title: d.title.clone(),
            description: d.description.clone(),
            thumbnail_url: self.thumbnail_url(d.thumbnail_token.as_deref()),
            urls: DeckUrls::under(&url),
            url,
            slug: d.slug.clone(),
            visibility: d.visibility,
            slide_count: d.slide_count,
            revision: d.revision,
            look: d.look.clone(),
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}
