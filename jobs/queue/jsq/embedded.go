package jsq

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// EmbeddedOptions configure a nats-server run inside this process.
type EmbeddedOptions struct {
	Name string // server name (default "molgraph")
	Dir  string // JetStream file store directory
	// Listen is the client listener host:port; "none" listens nowhere
	// (in-process clients only).
	Listen string
	// Users are the nkey users allowed to connect (none: no
	// authentication, allowed only without a listener or on loopback).
	Users []User
	TLS   *tls.Config // client TLS (required off loopback)
	// MaxMemory and MaxStore bound JetStream (defaults 64 MiB, 10 GiB).
	MaxMemory, MaxStore int64
	// Cluster, when set, joins a cluster: its name, this server's route
	// listener and the routes to the others.
	Cluster *ClusterOptions
}

// ClusterOptions make an embedded server a member of a cluster.
type ClusterOptions struct {
	Name   string
	Listen string   // host:port of the route listener
	Routes []string // nats-route://host:port of every member
	// NoAdvertise keeps the members' client URLs from clients (which
	// then use only the URLs they were given).
	NoAdvertise bool
}

// IsLoopback reports whether host:port (or a bare host) is on loopback.
func IsLoopback(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// StartEmbedded starts the server and waits until it accepts clients.
func StartEmbedded(o EmbeddedOptions) (*server.Server, error) {
	if o.Name == "" {
		o.Name = "molgraph"
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = 64 << 20
	}
	if o.MaxStore <= 0 {
		o.MaxStore = 10 << 30
	}
	opts := &server.Options{ServerName: o.Name, JetStream: true, StoreDir: o.Dir, JetStreamMaxMemory: o.MaxMemory,
		JetStreamMaxStore: o.MaxStore, MaxPayload: 8 << 20, NoSigs: true, NoLog: true,
		SyncAlways: true}
	if o.Listen == "none" {
		opts.DontListen = true
	} else {
		h, p, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return nil, fmt.Errorf("jsq: nats listener %q: %w", o.Listen, err)
		}
		port, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("jsq: nats listener %q: bad port", o.Listen)
		}
		if !IsLoopback(h) && (len(o.Users) == 0 || o.TLS == nil) {
			return nil, fmt.Errorf("jsq: nats listener %s is not on loopback: it needs credentials and TLS", o.Listen)
		}
		opts.Host, opts.Port = h, port
		if o.TLS != nil {
			opts.TLSConfig, opts.TLS = o.TLS, true
		}
	}
	for _, u := range o.Users {
		nu := &server.NkeyUser{Nkey: u.Nkey, Permissions: u.Permissions.server()}
		if u.InProcess {
			nu.AllowedConnectionTypes = map[string]struct{}{"IN_PROCESS": {}} // jwt.ConnectionTypeInProcess
		}
		opts.Nkeys = append(opts.Nkeys, nu)
	}
	if c := o.Cluster; c != nil {
		h, p, err := net.SplitHostPort(c.Listen)
		if err != nil {
			return nil, fmt.Errorf("jsq: cluster listener %q: %w", c.Listen, err)
		}
		port, _ := strconv.Atoi(p)
		opts.Cluster = server.ClusterOpts{Name: c.Name, Host: h, Port: port, NoAdvertise: c.NoAdvertise}
		for _, r := range c.Routes {
			u, err := parseURL(r)
			if err != nil {
				return nil, err
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("jsq: nats server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("jsq: nats server not ready after 30s")
	}
	return s, nil
}

// ConnectInProcess connects to an embedded server without a socket
// (opts: the user's nkey option when the server requires one).
func ConnectInProcess(s *server.Server, name string, opts ...nats.Option) (*nats.Conn, error) {
	return nats.Connect("", append([]nats.Option{nats.InProcessServer(s), nats.Name(name), nats.MaxReconnects(-1)}, opts...)...)
}
