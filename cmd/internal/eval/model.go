package eval

import (
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"time"
)

// model is the agent's model of a case, on loopback: it answers a turn's
// first request with the case's calls and its second with text, and keeps
// what nod told it about each call. The agent talks to it through its own
// client, so every case runs nod's real request and result path.
type model struct {
	url string
	srv *http.Server

	mu    sync.Mutex
	queue []completion
	told  map[string]string // tool results by call id, of the latest request
}

// completion is one answer of the chat completions API.
type completion struct {
	Content   string
	ToolCalls []Call
}

func newModel() (*model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &model{url: "http://" + ln.Addr().String() + "/v1", told: map[string]string{}}
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *model) close() { m.srv.Close() }

// script sets the next turn's answers: the calls, if any, with the text
// aside beside them, then text.
func (m *model) script(calls []Call, aside, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queue = nil
	if len(calls) > 0 {
		m.queue = append(m.queue, completion{Content: aside, ToolCalls: calls})
	}
	m.queue = append(m.queue, completion{Content: text})
	m.told = map[string]string{}
}

// results are the tool results of the turn's calls, by call id.
func (m *model) results() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.told
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	for _, msg := range req.Messages {
		if s, ok := msg.Content.(string); ok && msg.Role == "tool" {
			m.told[msg.ToolCallID] = s
		}
	}
	var next completion
	if len(m.queue) > 0 {
		next, m.queue = m.queue[0], m.queue[1:]
	} else {
		next = completion{Content: "OK."} // the agent asked once more than scripted
	}
	m.mu.Unlock()

	msg := map[string]any{"role": "assistant", "content": next.Content}
	finish := "stop"
	if len(next.ToolCalls) > 0 {
		var calls []map[string]any
		for i, c := range next.ToolCalls {
			args := string(c.Args)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"id": callID(i), "type": "function",
				"function": map[string]any{"name": c.Tool, "arguments": args}})
		}
		msg["tool_calls"], finish = calls, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "eval", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": finish, "message": msg}},
	})
}
