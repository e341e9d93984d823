package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The pREST peer: pREST (github.com/prest/prest), a generic REST server
// over PostgreSQL, serving the same transactions rows from the same
// database, measured beside afftrack under the same load. Nothing here
// builds it: --prest names a prestd binary the operator built.

// prestPeer is a running prestd.
type prestPeer struct {
	cmd  *exec.Cmd
	base string
	db   string // database name
	sch  string // schema of the generated tables
}

// startPrest starts the prestd binary on a free loopback port, serving
// the database of the PostgreSQL URL dsn, with authentication and caching
// off, and waits until it answers.
func startPrest(ctx context.Context, bin, dsn, logPath string) (*prestPeer, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("prest: the PostgreSQL URL cannot be parsed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	host, pgPort := u.Hostname(), u.Port()
	if pgPort == "" {
		pgPort = "5432"
	}
	pass, _ := u.User.Password()
	p := &prestPeer{base: "http://127.0.0.1:" + strconv.Itoa(port), db: strings.TrimPrefix(u.Path, "/"),
		sch: u.Query().Get("search_path")}
	if p.sch == "" {
		p.sch = "public"
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	p.cmd = exec.Command(bin)
	p.cmd.Dir = filepath.Dir(logPath)
	p.cmd.Env = append(os.Environ(),
		"PREST_HTTP_HOST=127.0.0.1", "PREST_HTTP_PORT="+strconv.Itoa(port),
		"PREST_PG_HOST="+host, "PREST_PG_PORT="+pgPort, "PREST_PG_DATABASE="+p.db,
		"PREST_PG_USER="+u.User.Username(), "PREST_PG_PASS="+pass,
		"PREST_PG_SSL_MODE=disable", "PREST_SSL_MODE=disable",
		"PREST_JWT_DEFAULT=false", "PREST_AUTH_ENABLED=false", "PREST_CACHE_ENABLED=false",
		"PREST_DEBUG=false")
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("prestd: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.base + "/" + p.db + "/" + p.sch + "/merchants?id=$eq.1")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("prestd did not answer within 30 s (%v); its log:\n%.2000s", err, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lookupPaths are pREST's requests for the same transactions as afftrack's
// lookups: /{database}/{schema}/transactions?id=$eq.{id}.
func (p *prestPeer) lookupPaths(afftrackLookups []string) []string {
	paths := make([]string, 0, len(afftrackLookups))
	for _, l := range afftrackLookups {
		rest := strings.TrimPrefix(l, "/V1/Merchant/Transactions/")
		id, _, _ := strings.Cut(rest, "?")
		paths = append(paths, "/"+p.db+"/"+p.sch+"/transactions?id=$eq."+id)
	}
	return paths
}

func (p *prestPeer) stop() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// measurePrest measures afftrack and pREST on the same random lookups
// under 32 connections; the row's baseline is pREST.
func (b *bench) measurePrest(ctx context.Context, srv *server, be backend, smp *samples) (row, error) {
	r := row{Scenario: "lookup by random id, 32 connections, vs pREST", Format: "JSON", Backend: be.Name}
	peer, err := startPrest(ctx, b.cfg.Prest, be.DSN, filepath.Join(b.dir, "prest.log"))
	if err != nil {
		return r, err
	}
	defer peer.stop()
	load := b.cfg.Load
	load.Connections = max(32, load.Connections)
	run := func(base string, paths []string, name string) (result, error) {
		script := filepath.Join(b.dir, name+".lua")
		if err := os.WriteFile(script, []byte(luaScript(paths)), 0o644); err != nil {
			return result{}, err
		}
		warm := load
		warm.Duration = b.cfg.Warmup
		if warm.Duration >= time.Second {
			if _, err := b.wrk.run(ctx, warm, base+"/", script, "Accept: application/json"); err != nil {
				return result{}, err
			}
		}
		return b.wrk.run(ctx, load, base+"/", script, "Accept: application/json")
	}
	if r.Afftrack, err = run(srv.base, smp.lookups, "afftrack-c32"); err != nil {
		return r, err
	}
	if r.Baseline, err = run(peer.base, peer.lookupPaths(smp.lookups), "prest-c32"); err != nil {
		return r, err
	}
	body, _, err := fetch(ctx, peer.base+peer.lookupPaths(smp.lookups[:1])[0], "application/json")
	if err != nil {
		return r, fmt.Errorf("pREST: %w", err)
	}
	r.BodyBytes = len(body)
	if r.Afftrack.failed() || r.Baseline.failed() {
		r.Note = fmt.Sprintf("afftrack: %d non-2xx, %d socket errors; pREST: %d non-2xx, %d socket errors; afftrack's failed requests:\n%s",
			r.Afftrack.Non2xx, r.Afftrack.SocketErrors, r.Baseline.Non2xx, r.Baseline.SocketErrors, srv.failedLines())
	}
	return r, nil
}
