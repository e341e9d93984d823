package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docCurl is one curl command of a page of the docs, as far as the test
// needs it: what it asks and the status its comment promises.
type docCurl struct {
	line    int // of the page, for messages
	method  string
	url     string
	headers [][2]string
	body    string
	want    int // the status the comment names; 0: any success or redirect
}

// parseDocCurls finds the curl commands in the fenced blocks of a page.
// A command may continue over lines ending in a backslash; a comment
// that starts with a status code ("# 404: ...") says what it answers.
func parseDocCurls(t *testing.T, page string) []docCurl {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		curls    []docCurl
		fenced   bool
		pending  string
		startsAt int
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			continue
		}
		if pending == "" {
			if !strings.HasPrefix(line, "curl ") {
				continue
			}
			startsAt = n
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending += cont + " "
			continue
		}
		c, err := parseCurl(pending + line)
		if err != nil {
			t.Fatalf("%s:%d: %v", page, startsAt, err)
		}
		c.line = startsAt
		curls = append(curls, c)
		pending = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return curls
}

// parseCurl reads the words of one command line as a POSIX shell would
// split them (single and double quotes, a comment after #) and keeps the
// options the docs use.
func parseCurl(line string) (docCurl, error) {
	var (
		words   []string
		word    strings.Builder
		inWord  bool
		quote   rune
		comment string
	)
scan:
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			comment = strings.TrimSpace(line[i+1:])
			break scan
		case r == '|':
			break scan // the rest is another command
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return docCurl{}, fmt.Errorf("unclosed quote in %q", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	c := docCurl{method: http.MethodGet}
	if code, _, _ := strings.Cut(comment, ":"); len(code) >= 3 {
		if n, err := strconv.Atoi(code[:3]); err == nil {
			c.want = n
		}
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() (string, error) {
			if i+1 == len(words) {
				return "", fmt.Errorf("%s wants a value", w)
			}
			i++
			return words[i], nil
		}
		var err error
		switch {
		case w == "-X":
			c.method, err = next()
		case w == "-H":
			var h string
			if h, err = next(); err == nil {
				name, value, _ := strings.Cut(h, ":")
				c.headers = append(c.headers, [2]string{name, strings.TrimSpace(value)})
			}
		case w == "-A":
			var ua string
			if ua, err = next(); err == nil {
				c.headers = append(c.headers, [2]string{"User-Agent", ua})
			}
		case w == "-d":
			c.body, err = next()
		case strings.HasPrefix(w, "-"):
			// -s, -i, -si: how curl shows the answer, not what it asks.
		default:
			c.url = w
		}
		if err != nil {
			return docCurl{}, err
		}
	}
	if c.url == "" {
		return docCurl{}, fmt.Errorf("no URL in %q", line)
	}
	return c, nil
}

// TestAPIDocCurlExamplesWorkAgainstTheDemo runs every curl command of
// docs/api.md, in the page's order, against `serve --demo`: each answers
// the status its comment names, or a success when it names none.
func TestAPIDocCurlExamplesWorkAgainstTheDemo(t *testing.T) {
	curls := parseDocCurls(t, "../../docs/api.md")
	if len(curls) < 40 {
		t.Fatalf("found %d curl commands in docs/api.md; the parser lost some", len(curls))
	}
	s := serve(t, "--demo")
	defer s.stop(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range curls {
		t.Run(fmt.Sprintf("line %d %s %s", c.line, c.method, c.url), func(t *testing.T) {
			url, ok := strings.CutPrefix(c.url, "http://localhost:8080")
			if !ok {
				t.Fatalf("the example does not call http://localhost:8080: %s", c.url)
			}
			req, err := http.NewRequest(c.method, s.base+url, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range c.headers {
				req.Header.Add(h[0], h[1])
			}
			if req.Header.Get("User-Agent") == "" {
				req.Header.Set("User-Agent", "curl/8.5.0")
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case c.want != 0 && resp.StatusCode != c.want:
				t.Errorf("status %d, the page says %d; body: %.300s", resp.StatusCode, c.want, body)
			case c.want == 0 && resp.StatusCode >= 400:
				t.Errorf("status %d; body: %.300s", resp.StatusCode, body)
			}
		})
	}
}
