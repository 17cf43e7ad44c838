package chem

import (
	"fmt"
	"strings"
)

// smilesHint names the first obvious syntax problem of a SMILES that RDKit
// refused without saying why (its parser reports details only to the log,
// which is silenced): unbalanced brackets or parentheses, or a ring bond
// that is opened but not closed. It returns "" when it sees none.
func smilesHint(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		s = f[0]
	}
	depth, open := 0, map[string]int{}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return fmt.Sprintf("'[' at position %d is not closed", i+1)
			}
			i += j
		case c == ']':
			return fmt.Sprintf("']' at position %d has no matching '['", i+1)
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return fmt.Sprintf("')' at position %d has no matching '('", i+1)
			}
		case c >= '0' && c <= '9':
			open[string(c)]++
		case c == '%' && i+2 < len(s):
			open[s[i+1:i+3]]++
			i += 2
		case !strings.ContainsRune("BCNOPSFIclnospbrh-=#$:/\\.@+*", rune(c)) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z'):
			return fmt.Sprintf("unexpected character %q at position %d", c, i+1)
		}
	}
	if depth > 0 {
		return "a '(' is not closed"
	}
	for d := 0; d <= 99; d++ {
		k := fmt.Sprint(d)
		if d >= 10 {
			k = fmt.Sprintf("%02d", d)
		}
		if open[k]%2 == 1 {
			return "ring bond " + k + " is not closed"
		}
	}
	return ""
}
