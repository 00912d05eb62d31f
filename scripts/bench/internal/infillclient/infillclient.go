// Package infillclient sends one POST /infill request, as the editor
// benchmarks (linecomplete, editreplay) do, and reads what they measure.
package infillclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Answer is what the benchmarks read of an /infill answer, and the
// request's wall time.
type Answer struct {
	Content string `json:"content"`
	Timings struct {
		CacheN  int `json:"cache_n"`
		PromptN int `json:"prompt_n"`
	} `json:"timings"`
	Seconds float64 `json:"-"`
}

// Post sends req (the request's JSON fields) to url's /infill; a status
// other than 200 is an error carrying the body.
func Post(url string, req map[string]any) (Answer, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Answer{}, err
	}
	start := time.Now()
	resp, err := http.Post(url+"/infill", "application/json", bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return Answer{}, fmt.Errorf("%s: %s", resp.Status, b)
	}
	var ans Answer
	if err := json.Unmarshal(b, &ans); err != nil {
		return Answer{}, err
	}
	ans.Seconds = time.Since(start).Seconds()
	return ans, nil
}
