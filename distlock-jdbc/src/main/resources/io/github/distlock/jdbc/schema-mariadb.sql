-- distlock's lock table for MariaDB and MySQL. One row per lock ever taken; a lock is held while holder is set and
-- expires_at (microseconds since the epoch, by the database's clock) is in the future.
CREATE TABLE IF NOT EXISTS distlock_locks (
    lock_id    VARCHAR(64)   CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY, -- SHA-256 (hex) of name and key
    lock_name  VARCHAR(1024) CHARACTER SET utf8mb4 NOT NULL,    -- for operators: the name, control characters escaped
    lock_key   VARCHAR(1024) CHARACTER SET utf8mb4 NOT NULL,    -- for operators: the key, escaped and cut to 200 characters
    holder     VARCHAR(64)   CHARACTER SET ascii COLLATE ascii_bin, -- the acquisition holding it; NULL once released
    token      BIGINT        NOT NULL,                          -- fencing token of the last acquisition; only grows
    expires_at BIGINT        NOT NULL                           -- end of the lease, microseconds since the epoch
) ENGINE = InnoDB;
