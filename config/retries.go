package config

import (
	"fmt"

	"github.com/amber-crawler/amber/retry"
)

// CheckRetries checks politeness.retries as retry.Check does, its errors wrapping ErrConfig
// too; it returns the map with canonical conditions (nil for an empty one).
func CheckRetries(r map[string]int) (map[string]int, error) {
	out, err := retry.Check(r)
	if err != nil {
		return nil, fmt.Errorf("%w: retries: %w", ErrConfig, err)
	}
	return out, nil
}
