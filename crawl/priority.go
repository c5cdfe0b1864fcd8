package crawl

import (
	"errors"
	"fmt"

	"github.com/amber-crawler/amber/frontier"
)

// Priority sets priority levels of the crawl's queue (frontier.Priority: FAST's
// workqueue_priority); ordering is the frontier's job. Default: one level.
type Priority = frontier.Priority

// PriorityRule is one rule of Priority.Rules.
type PriorityRule = frontier.PriorityRule

// validatePriority checks c.Priority as its frontier will: a shared frontier has at most its
// MaxLevels levels.
func (c *Config) validatePriority() error {
	p := c.Priority
	var pe *frontier.PriorityError
	if err := p.Validate(); errors.As(err, &pe) {
		return &FieldError{Field: "Priority." + pe.Field, Err: pe.Err}
	} else if err != nil {
		return &FieldError{Field: "Priority", Err: err}
	}
	if c.Shared != nil && p.On() && p.Levels > c.Shared.MaxLevels() {
		return &FieldError{Field: "Priority.Levels", Err: fmt.Errorf("%d: a shared frontier has at most %d", p.Levels, c.Shared.MaxLevels())}
	}
	return nil
}
