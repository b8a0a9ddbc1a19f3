-- Rate-limit counts shared by the servers on this database: each server adds what it let
-- through per key (credential or client address) in 10-second buckets, and reads the others'
-- once a second. Rows older than a minute are deleted. Paired with SQLite 0006.

CREATE TABLE rate_limit_usage (
    server TEXT NOT NULL,
    key TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    requests BIGINT NOT NULL,
    PRIMARY KEY (server, key, bucket)
);
CREATE INDEX rate_limit_usage_bucket ON rate_limit_usage(bucket);
