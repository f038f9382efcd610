//! The inventory and the ledger in a real SQLite database (FORMAT.md, "The
//! database"): the schema every implementation keeps, the items seeded, the
//! four tools' reads and `reserve`'s one transaction, an outside change,
//! and the database read back with the plain SQL a harness uses. The
//! idempotency rule is the schema's `UNIQUE` key: [`Store::reserve`] looks
//! the key up first to answer a replay, but a second row for a key cannot
//! be written whatever the code does.

use super::spec::{Database, Item, ItemRow, LedgerRow};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::Duration;
use toolgate_suite::Error;

/// The schema of FORMAT.md, exactly.
pub const SCHEMA: &str = "
CREATE TABLE items (
  id        TEXT PRIMARY KEY,
  title     TEXT NOT NULL,
  body      TEXT NOT NULL,
  available INTEGER NOT NULL CHECK (available >= 0),
  revision  INTEGER NOT NULL CHECK (revision >= 0)
);
CREATE TABLE ledger (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT NOT NULL UNIQUE,
  task_id         TEXT NOT NULL,
  item_id         TEXT NOT NULL REFERENCES items(id),
  quantity        INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
  remaining       INTEGER NOT NULL CHECK (remaining >= 0),
  revision        INTEGER NOT NULL
);
";

/// How long a connection waits for another one's write transaction: two
/// runs reserving at once serialize instead of failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

fn sql(e: rusqlite::Error) -> Error {
    Error::storage(format!("sqlite: {e}"))
}

/// One connection to a case's database.
pub struct Store {
    conn: Connection,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub id: String,
    pub title: String,
    pub text: String,
}

/// What `reserve` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reservation {
    /// A row was written now (`replayed: false`) or the key's row was
    /// found (`replayed: true`).
    Done { row: LedgerRow, replayed: bool },
    /// The item's revision is not the expected one.
    Stale,
    /// Fewer available than asked for.
    Insufficient,
}

impl Store {
    /// A new database at `path` with the schema and `items`.
    pub fn create(path: &Path, items: &[Item]) -> Result<Store, Error> {
        let mut store = Store::open(path)?;
        let tx = store.conn.transaction().map_err(sql)?;
        tx.execute_batch(SCHEMA).map_err(sql)?;
        for item in items {
            tx.execute(
                "INSERT INTO items (id, title, body, available, revision) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![item.id, item.title, item.text, item.available, item.revision],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(store)
    }

    /// Another connection to the database at `path`.
    pub fn open(path: &Path) -> Result<Store, Error> {
        let conn = Connection::open(path).map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        conn.execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(sql)?;
        Ok(Store { conn })
    }

    /// The items whose title or text contains `query` after full case
    /// folding, by id (SQLite's BINARY order of UTF-8 is code point order).
    pub fn search(&self, query: &str) -> Result<Vec<Hit>, Error> {
        let folder = icu_casemap::CaseMapper::new();
        let needle = folder.fold_string(query).to_string();
        let mut statement = self
            .conn
            .prepare("SELECT id, title, body FROM items ORDER BY id")
            .map_err(sql)?;
        let rows = statement
            .query_map([], |r| {
                Ok(Hit {
                    id: r.get(0)?,
                    title: r.get(1)?,
                    text: r.get(2)?,
                })
            })
            .map_err(sql)?;
        let mut hits = Vec::new();
        for hit in rows {
            let hit = hit.map_err(sql)?;
            if folder.fold_string(&hit.title).contains(&needle)
                || folder.fold_string(&hit.text).contains(&needle)
            {
                hits.push(hit);
            }
        }
        Ok(hits)
    }

    /// An item's text.
    pub fn document(&self, item_id: &str) -> Result<String, Error> {
        self.conn
            .query_row("SELECT body FROM items WHERE id = ?1", [item_id], |r| {
                r.get(0)
            })
            .map_err(sql)
    }

    /// An item's `available` and `revision`.
    pub fn stock(&self, item_id: &str) -> Result<(i64, i64), Error> {
        self.conn
            .query_row(
                "SELECT available, revision FROM items WHERE id = ?1",
                [item_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(sql)
    }

    /// `reserve` in one write transaction: a replay by key, else the
    /// revision, else the stock, else the write.
    pub fn reserve(
        &mut self,
        task_id: &str,
        item_id: &str,
        quantity: i64,
        expected_revision: i64,
        key: &str,
    ) -> Result<Reservation, Error> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let earlier = tx
            .query_row(
                "SELECT id, idempotency_key, task_id, item_id, quantity, remaining, revision
                 FROM ledger WHERE idempotency_key = ?1",
                [key],
                ledger_row,
            )
            .optional()
            .map_err(sql)?;
        if let Some(row) = earlier {
            return Ok(Reservation::Done {
                row,
                replayed: true,
            });
        }
        let (available, revision): (i64, i64) = tx
            .query_row(
                "SELECT available, revision FROM items WHERE id = ?1",
                [item_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(sql)?;
        if revision != expected_revision {
            return Ok(Reservation::Stale);
        }
        if available < quantity {
            return Ok(Reservation::Insufficient);
        }
        let (remaining, revision) = (available - quantity, revision + 1);
        tx.execute(
            "UPDATE items SET available = ?1, revision = ?2 WHERE id = ?3",
            params![remaining, revision, item_id],
        )
        .map_err(sql)?;
        tx.execute(
            "INSERT INTO ledger (idempotency_key, task_id, item_id, quantity, remaining, revision)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![key, task_id, item_id, quantity, remaining, revision],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(sql)?;
        Ok(Reservation::Done {
            row: LedgerRow {
                id,
                idempotency_key: key.to_string(),
                task_id: task_id.to_string(),
                item_id: item_id.to_string(),
                quantity,
                remaining,
                revision,
            },
            replayed: false,
        })
    }

    /// Someone else sets an item's stock, as a harness does with plain SQL.
    pub fn external(&self, item_id: &str, available: i64) -> Result<(), Error> {
        let changed = self
            .conn
            .execute(
                "UPDATE items SET available = ?1, revision = revision + 1 WHERE id = ?2",
                params![available, item_id],
            )
            .map_err(sql)?;
        if changed == 1 {
            Ok(())
        } else {
            Err(Error::scenario(format!("external: no item {item_id:?}")))
        }
    }

    /// The database as the observation holds it.
    pub fn snapshot(&self) -> Result<Database, Error> {
        let mut items = self
            .conn
            .prepare("SELECT id, available, revision FROM items ORDER BY id")
            .map_err(sql)?;
        let items = items
            .query_map([], |r| {
                Ok(ItemRow {
                    id: r.get(0)?,
                    available: r.get(1)?,
                    revision: r.get(2)?,
                })
            })
            .map_err(sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql)?;
        let mut ledger = self
            .conn
            .prepare(
                "SELECT id, idempotency_key, task_id, item_id, quantity, remaining, revision
                 FROM ledger ORDER BY id",
            )
            .map_err(sql)?;
        let ledger = ledger
            .query_map([], ledger_row)
            .map_err(sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql)?;
        Ok(Database { items, ledger })
    }

    /// The raw connection, for tests of the schema's own guarantees.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

fn ledger_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LedgerRow> {
    Ok(LedgerRow {
        id: r.get(0)?,
        idempotency_key: r.get(1)?,
        task_id: r.get(2)?,
        item_id: r.get(3)?,
        quantity: r.get(4)?,
        remaining: r.get(5)?,
        revision: r.get(6)?,
    })
}

/// `document`'s digest: `sha256:` and the hex of the UTF-8 text.
pub fn digest(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
