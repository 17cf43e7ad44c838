package quadstore

import (
	"hash/maphash"
	"sync"

	"github.com/cayleygraph/quad"
)

// The two in-process caches of the term dictionary. Each is split into
// shards; a shard that reaches its share of the bound drops a quarter of its
// entries, chosen at random (cheaper than LRU bookkeeping on every hit, and a
// dictionary lookup on a miss is one Badger read). Emptying the whole shard
// instead would make a scan over a working set a little larger than the
// cache miss on every term. Ids are never reused, so an id -> term entry is valid
// forever; a term -> id entry records the commit that created the id, and a
// snapshot older than that does not use it.

const cacheShards = 32

type termEntry struct {
	id   uint64
	born uint64 // commit timestamp that created the id
}

type termCache struct {
	seed   maphash.Seed
	max    int
	shards [cacheShards]struct {
		mu sync.RWMutex
		m  map[string]termEntry
	}
}

func newTermCache(max int) *termCache {
	c := &termCache{seed: maphash.MakeSeed(), max: max/cacheShards + 1}
	for i := range c.shards {
		c.shards[i].m = make(map[string]termEntry)
	}
	return c
}

func (c *termCache) shard(enc []byte) int { return int(maphash.Bytes(c.seed, enc) % cacheShards) }

// get returns the id of enc valid at snapshot ts.
func (c *termCache) get(enc []byte, ts uint64) (uint64, bool) {
	sh := &c.shards[c.shard(enc)]
	sh.mu.RLock()
	e, ok := sh.m[string(enc)]
	sh.mu.RUnlock()
	if !ok || e.born > ts {
		return 0, false
	}
	return e.id, true
}

func (c *termCache) put(enc []byte, id, born uint64) {
	sh := &c.shards[c.shard(enc)]
	sh.mu.Lock()
	if len(sh.m) >= c.max {
		evict(sh.m)
	}
	sh.m[string(enc)] = termEntry{id: id, born: born}
	sh.mu.Unlock()
}

func (c *termCache) remove(enc []byte) {
	sh := &c.shards[c.shard(enc)]
	sh.mu.Lock()
	delete(sh.m, string(enc))
	sh.mu.Unlock()
}

func (c *termCache) reset() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.m)
		sh.mu.Unlock()
	}
}

type nameCache struct {
	max    int
	shards [cacheShards]struct {
		mu sync.RWMutex
		m  map[uint64]quad.Value
	}
}

func newNameCache(max int) *nameCache {
	c := &nameCache{max: max/cacheShards + 1}
	for i := range c.shards {
		c.shards[i].m = make(map[uint64]quad.Value)
	}
	return c
}

func (c *nameCache) get(id uint64) (quad.Value, bool) {
	sh := &c.shards[id%cacheShards]
	sh.mu.RLock()
	v, ok := sh.m[id]
	sh.mu.RUnlock()
	return v, ok
}

func (c *nameCache) put(id uint64, v quad.Value) {
	sh := &c.shards[id%cacheShards]
	sh.mu.Lock()
	if len(sh.m) >= c.max {
		evict(sh.m)
	}
	sh.m[id] = v
	sh.mu.Unlock()
}

// evict deletes about a quarter of m's entries, chosen by Go's randomised
// map iteration order.
func evict[K comparable, V any](m map[K]V) {
	n := len(m) / 4
	if n == 0 {
		n = 1
	}
	for k := range m {
		if n == 0 {
			break
		}
		delete(m, k)
		n--
	}
}
