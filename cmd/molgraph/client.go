package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/molgraph/molgraph/handlers"
)

// apiClient talks to a running server's /v1 API with a Bearer key:
// JSON replies, problem+json errors.
type apiClient struct {
	base *url.URL
	key  string
	http *http.Client
}

func (c *apiClient) do(req *http.Request, want int, out any) error {
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		var p handlers.Problem
		if json.Unmarshal(body, &p) == nil && p.Code != "" {
			return fmt.Errorf("%s %s: %d %s: %s", req.Method, req.URL.Path, p.Status, p.Code, p.Detail)
		}
		return fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, resp.Status)
	}
	return json.Unmarshal(body, out)
}

// newAPIClient checks --server (an http(s) URL) and the API key (--key,
// MOLGRAPH_API_KEY or the bootstrap key) and returns a client whose requests
// time out after timeout (0: never).
func newAPIClient(s settings, timeout time.Duration) (*apiClient, error) {
	key := s.apiKey()
	if key == "" {
		return nil, fmt.Errorf("%w: no API key: use --key or MOLGRAPH_API_KEY", errUsage)
	}
	base, err := url.Parse(s.str("server"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("%w: --server %q is not an http(s) URL", errUsage, s.str("server"))
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	return &apiClient{base: base, key: key, http: &http.Client{Timeout: timeout}}, nil
}

// json sends body (if not nil) as JSON to path (relative to the server's
// base URL, query included) and decodes a reply with status want into out.
func (c *apiClient) json(ctx context.Context, method, path string, body any, want int, out any) error {
	u, err := c.base.Parse(path)
	if err != nil {
		return err
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.do(req, want, out)
}
