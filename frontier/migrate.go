package frontier

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"
)

// The keyspace's format versions. Format 1 (stores without an f/version key, written before
// keys were bounded) holds every URL, host, digest and metadata key verbatim; format 2 hashes
// those longer than maxKeyPart (keyPart). Keys of shorter strings are the same in both, so
// migrating a format 1 store rewrites only its long keys.
const formatVersion = 2

var formatKey = []byte(prefixFormat + "version")

// errNewer is returned by Open for a store written by a later format.
var errNewer = errors.New("frontier: store written by a newer version of amber")

// migrate brings the store to formatVersion. It is idempotent, so a crash in the middle is
// repaired by the next Open: every rewrite is one transaction that puts the new key and
// deletes the old one, and the version is written last.
func (f *Frontier) migrate() error {
	var version int
	err := f.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(formatKey)
		if errors.Is(err, badger.ErrKeyNotFound) {
			version = 1
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			version, err = strconv.Atoi(string(v))
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("frontier: read format: %w", err)
	}
	switch {
	case version == formatVersion:
		return nil
	case version > formatVersion:
		return fmt.Errorf("%w: format %d", errNewer, version)
	}
	for _, prefix := range []string{prefixURL, prefixQueue, prefixDigest, prefixMeta} {
		if err := f.migratePrefix(prefix); err != nil {
			return fmt.Errorf("frontier: migrate %s keys: %w", prefix, err)
		}
	}
	val := []byte(strconv.Itoa(formatVersion))
	if err := f.write(int64(len(formatKey)+len(val)+entryOverhead+txnOverhead), 1, func(txn *badger.Txn) error {
		return txn.Set(formatKey, val)
	}); err != nil {
		return fmt.Errorf("frontier: write format: %w", err)
	}
	return nil
}

// migratePrefix rewrites the keys under prefix whose key part is longer than maxKeyPart (only
// format 1 wrote those verbatim; hashed ones are recognised and kept).
func (f *Frontier) migratePrefix(prefix string) error {
	var long [][]byte
	err := f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.PrefetchValues = false
		opt.Prefix = []byte(prefix)
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			part := k[len(prefix):]
			if prefix == prefixQueue {
				var err error
				if part, _, err = parseQueueKey(k); err != nil {
					return fmt.Errorf("queue key %q: %w", k, err)
				}
			}
			if hashed(part) {
				long = append(long, it.Item().KeyCopy(nil))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range long {
		if err := f.migrateKey(prefix, k); err != nil {
			return err
		}
	}
	return nil
}

// migrateKey moves one entry with a long key part to its format 2 key.
func (f *Frontier) migrateKey(prefix string, k []byte) error {
	var size int64
	err := f.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(k)
		if err != nil {
			return err
		}
		size = item.ValueSize()
		return nil
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	size += int64(2*len(k)) + hashedPart + 2*entryOverhead + txnOverhead
	return f.write(size, 2, func(txn *badger.Txn) error {
		item, err := txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		meta := item.UserMeta()
		var nk []byte
		switch prefix {
		case prefixURL:
			rec, err := decodeRecord(v)
			if err != nil {
				return fmt.Errorf("record %q: %w", k, err)
			}
			nk = urlKey(rec.URL.URL)
		case prefixQueue:
			rec, err := decodeRecord(v)
			if err != nil {
				return fmt.Errorf("queue entry %q: %w", k, err)
			}
			nk = append(hostPrefix(rec.URL.Host), k[len(k)-16:]...)
		default:
			if meta == longKey {
				return nil // already format 2
			}
			full := string(k[len(prefix):])
			nk, v, meta = prefixed(prefix, full), encodeLong(full, v), longKey
		}
		if bytes.Equal(nk, k) {
			return nil // already format 2
		}
		if err := txn.SetEntry(badger.NewEntry(nk, v).WithMeta(meta)); err != nil {
			return err
		}
		return txn.Delete(k)
	})
}
