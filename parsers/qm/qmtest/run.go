package qmtest

import (
	"bytes"
	"testing"
)

// RunCorpus parses every log of a corpus folder and checks it against
// cclib master, EXPECTED.md, the golden files and truncated copies.
func RunCorpus(t *testing.T, folder string, parse ParseFunc) {
	refs := References(t)
	exp := Expected()
	tally := NewTally()
	nexp := 0
	for _, rel := range Logs(t, folder) {
		data := Read(t, rel)
		c, err := parse(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if r, ok := refs[rel]; ok {
			CompareCclib(t, rel, c, r, tally)
		} else {
			t.Errorf("%s: no cclib reference", rel)
		}
		if e, ok := exp[rel]; ok {
			nexp += CheckExpected(t, rel, c, e)
		}
		Golden(t, rel, c)
		Truncations(t, rel, data, parse, c, 12)
	}
	t.Logf("%s vs cclib master (pass/compared per field):\n%s  skipped (convention): %v\n  EXPECTED.md assertions checked: %d",
		folder, tally, tally.Skip, nexp)
}
