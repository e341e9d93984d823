package jsontext

import "testing"

func TestStorable(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`"plain"`, true},
		{`"a surrogate pair \ud83d\ude00"`, true},
		{`"an escaped backslash before u \\ud800"`, true},
		{`"escapes \n \" \/ \u00e9"`, true},
		{`"a lone high surrogate \ud800"`, false},
		{`"a lone low surrogate \udc00"`, false},
		{`"two high surrogates \ud800\ud800"`, false},
		{"\"invalid UTF-8 \xff\"", false},
	}
	for _, tt := range tests {
		if got := Storable([]byte(tt.raw)); got != tt.want {
			t.Errorf("Storable(%s) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
