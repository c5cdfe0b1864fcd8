package hop

import (
	"strings"
	"testing"
)

func TestLogged(t *testing.T) {
	long := strings.Repeat("L", 60) + strings.Repeat("E", 10)
	tests := []struct{ in, want string }{
		{"", "-"},
		{"L", "L"},
		{"LLRE", "LLRE"},
		{strings.Repeat("L", 50), strings.Repeat("L", 50)},
		{strings.Repeat("L", 51), "1+" + strings.Repeat("L", 50)},
		{long, "20+" + strings.Repeat("L", 40) + strings.Repeat("E", 10)},
		// CrawlURI.extendHopsPath's own test cases, the path extended by X.
		{strings.Repeat("L", 49) + "X", strings.Repeat("L", 49) + "X"},
		{strings.Repeat("L", 50) + "X", "1+" + strings.Repeat("L", 49) + "X"},
		{"99+" + strings.Repeat("L", 50) + "X", "100+" + strings.Repeat("L", 49) + "X"},
		// Already logged: unchanged.
		{"1+" + strings.Repeat("L", 50), "1+" + strings.Repeat("L", 50)},
		{"7+RLE", "7+RLE"},
		// Not in that form: letters, whatever they are (FuzzParseLine: "0+0+" was written "0+",
		// read back as "0+" and then written "-").
		{"0+0+", "0+0+"},
		{"0+", "0+"},
		{"0+L", "0+L"},
		{"5+0+", "5+0+"},
		{"-1+L", "-1+L"},
		{"01+L", "01+L"},
		{"2000000000000+L", "2000000000000+L"},
		// A long damaged column whose last 50 letters hold a '+' (FuzzParseLine: written
		// "1+0…+00", read back as 52 letters and written "2+0…+00").
		{"0+" + strings.Repeat("0", 47) + "+00", "2+" + strings.Repeat("0", 47) + "+00"},
		{"1+" + strings.Repeat("0", 47) + "+00", "1+" + strings.Repeat("0", 47) + "+00"},
	}
	for _, tt := range tests {
		if got := Logged(tt.in); got != tt.want {
			t.Errorf("Logged(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Logged(Logged(tt.in)); got != tt.want {
			t.Errorf("Logged(Logged(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPathQuestions(t *testing.T) {
	tests := []struct {
		path      string
		chain     bool
		navigates bool
	}{
		{"", true, true},
		{"R", true, true},
		{"RR", true, true},
		{"RL", false, true},
		{"LE", false, false},
		{"LX", false, true},
		{"LM", false, true},
		{"I", false, false},
		{"P", false, false},
	}
	for _, tt := range tests {
		if got := IsRedirectChain(tt.path); got != tt.chain {
			t.Errorf("IsRedirectChain(%q) = %v, want %v", tt.path, got, tt.chain)
		}
		if got := Navigates(tt.path); got != tt.navigates {
			t.Errorf("Navigates(%q) = %v, want %v", tt.path, got, tt.navigates)
		}
	}
}
