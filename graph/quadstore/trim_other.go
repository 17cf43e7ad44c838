//go:build !linux

package quadstore

import "time"

// trimTables is Linux-only (trim_linux.go): elsewhere Badger's table
// mappings stay resident.
func (s *Store) trimTables(dir string, every time.Duration, limit int64) { close(s.trimDone) }
