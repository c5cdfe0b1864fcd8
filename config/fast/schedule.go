package fast

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/timeslot"
)

// politeSites maps the collection's variable_delay section onto politeness.delay_schedule,
// and max_sites and max_inter_docs onto politeness.max_sites and max_inter_docs. max_sites
// left out is FAST's default, 128 (FAST crawls that many sites at once; so does amber).
func (c *conv) politeSites() {
	if n, from, ok := c.count("max_sites", 128); ok {
		if n == 0 {
			c.invalid(c.top["max_sites"], "max_sites 0: want 1 or more")
		} else {
			c.c.Politeness.MaxSites = int(n)
			c.srcTop("politeness.max_sites", "max_sites", from)
		}
	}
	if a := c.top["max_inter_docs"]; a != nil {
		if a.Int < 1 {
			c.invalid(a, "max_inter_docs %d: want 1 or more", a.Int)
		} else {
			c.c.Politeness.MaxInterDocs = int(a.Int)
			c.src("politeness.max_inter_docs", "max_inter_docs")
			c.mapped(a, "politeness.max_inter_docs")
			c.differs(a)
		}
	}
	s := c.secs["variable_delay"]
	if s == nil {
		return
	}
	c.mapped(s, "politeness.delay_schedule")
	var from []string
	for _, a := range s.Attribs {
		slot, ok := c.delaySlot(a)
		if !ok {
			continue
		}
		c.differs2(a, "variable_delay")
		c.mapped(a, fmt.Sprintf("politeness.delay_schedule[%d]", len(c.c.Politeness.DelaySchedule)))
		c.c.Politeness.DelaySchedule = append(c.c.Politeness.DelaySchedule, slot)
		from = append(from, c.short[a])
	}
	if len(from) > 0 {
		c.src("politeness.delay_schedule", strings.Join(from, ", "))
	}
}

// delaySlot reads one attrib of variable_delay: its name the slot, "DDD:HH[.MM]-DDD:HH[.MM]",
// its value a delay in seconds or "suspend". An attrib that is not one is invalid (false).
func (c *conv) delaySlot(a *Attrib) (config.DelaySlot, bool) {
	name := strings.TrimSpace(a.Name)
	f, t, found := strings.Cut(name, "-")
	from, okf := fastSlotTime(f)
	to, okt := fastSlotTime(t)
	if !found || !okf || !okt {
		c.invalid(a, "time slot %q: want DDD:HH.MM-DDD:HH.MM, such as Mon:21.00-Mon:22.30", name)
		return config.DelaySlot{}, false
	}
	if _, err := timeslot.Parse(nil, from, to); err != nil {
		c.invalid(a, "time slot %q: %v", name, err)
		return config.DelaySlot{}, false
	}
	slot := config.DelaySlot{From: from, To: to}
	v := strings.TrimSpace(a.Text)
	if strings.EqualFold(v, "suspend") {
		slot.Suspend = true
		return slot, true
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || secs < 0 || secs > 1e6 {
		c.invalid(a, "time slot %s: delay %q: want seconds, 0 or more, or suspend", name, v)
		return config.DelaySlot{}, false
	}
	d := time.Duration(secs * float64(time.Second)).Round(time.Millisecond)
	slot.Delay = &d
	return slot, true
}

// fastSlotTime turns FAST's "DDD:HH[.MM]" (also "DDD:HH:MM") into amber's "Ddd HH:MM".
func fastSlotTime(s string) (string, bool) {
	day, hm, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || len(day) != 3 {
		return "", false
	}
	hh, mm, found := strings.Cut(hm, ".")
	if !found {
		hh, mm, found = strings.Cut(hm, ":")
	}
	if !found {
		mm = "00"
	}
	if len(hh) == 1 {
		hh = "0" + hh
	}
	return strings.ToUpper(day[:1]) + strings.ToLower(day[1:]) + " " + hh + ":" + mm, true
}
