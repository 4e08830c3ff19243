-- When each user last looked at what happened in their games (milliseconds since 1970); NULL: never, so
-- everything since they joined is news.
ALTER TABLE users ADD COLUMN news_seen_ms INTEGER;
