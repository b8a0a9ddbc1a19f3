-- An access token's own scope, when a refresh asked for less than its grant (RFC 6749 §6);
-- NULL: the grant's scope. Paired with the other engine's 0007.
ALTER TABLE oauth_tokens ADD COLUMN scope TEXT;
