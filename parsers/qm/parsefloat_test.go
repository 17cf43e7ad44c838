package qm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// floatCases are numbers as the logs print them, and edge cases of the
// fast path's limits (19 digits, 2⁵³, 10²²) and of the syntax.
var floatCases = []string{
	"0", "-0", "+0", "0.0", "-0.000", "1", "-1", "1.", ".5", "-.5", "5.e3",
	"-382.308266602", "-264.598658642006", "2.000000D+00", "-1.090299D+00", "1.0d-03", "0.1771",
	"1.23456789012345678", "12345678901234567890", "0.0000000000000000000000001", "9007199254740993",
	"9007199254740992", "1e22", "1e23", "1e-22", "1e-23", "123456789e-22", "4.9406564584124654e-324",
	"1.7976931348623157e308", "1e999", "-1e-999", "1.0-100", "1e", "e5", ".", "-", "+", "--1", "1.2.3",
	"1e+", "1e-", "0x10", "1_000", "NaN", "Inf", "-inf", "1E5", "3.14159265358979323846",
	"0.30000000000000004", "00000000000000000000001.5", "1.00000000000000000000000000",
}

// TestParseFloatCases: ParseFloat equals strconv.ParseFloat (after the
// Fortran D→e) to the bit, or both refuse.
func TestParseFloatCases(t *testing.T) {
	for _, s := range floatCases {
		checkFloat(t, []byte(s))
	}
}

// FuzzParseFloat: the fast path never differs from strconv.
func FuzzParseFloat(f *testing.F) {
	for _, s := range floatCases {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFloat)
}

func checkFloat(t *testing.T, b []byte) {
	got, ok := ParseFloat(b)
	want, wok := parseFloatStrconv(b)
	if len(b) == 0 || len(b) > 64 {
		want, wok = 0, false
	}
	if ok != wok || math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("ParseFloat(%q) = %v, %v; strconv: %v, %v", b, got, ok, want, wok)
	}
}

// FuzzParseInt: ParseInt equals strconv.Atoi for up to 18 characters.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "+5", "-", "+", "12", "-999999999999999999", "999999999999999999", "1_0", "0x1", " 1", "1 ", "١"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ParseInt(b)
		want, err := strconv.Atoi(string(b))
		wok := err == nil && len(b) > 0 && len(b) <= 18
		if !wok {
			want = 0
		}
		if ok != wok || got != want {
			t.Errorf("ParseInt(%q) = %v, %v; strconv.Atoi: %v, %v", b, got, ok, want, err)
		}
	})
}

// TestParseFloatPrinted: 200,000 random doubles printed as programs print
// them (%f, %e, Fortran D, 1–20 digits) parse to strconv's value.
func TestParseFloatPrinted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		v := math.Ldexp(r.Float64()-0.5, r.IntN(80)-40)
		prec := r.IntN(20) + 1
		var s string
		switch r.IntN(3) {
		case 0:
			s = strconv.FormatFloat(v, 'f', prec, 64)
		case 1:
			s = strconv.FormatFloat(v, 'e', prec, 64)
		default:
			s = strings.Replace(strconv.FormatFloat(v, 'E', prec, 64), "E", "D", 1)
		}
		checkFloat(t, []byte(s))
		if t.Failed() {
			return
		}
	}
}
