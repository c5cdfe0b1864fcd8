package fast

// What amber's fetchers read links from (package extract for the plain HTTP fetcher, the
// rendered DOM for the browser fetcher), for the link_extraction section (§2.2.4.17).
const (
	whyAnchors     = "amber follows the links of a and area elements, with either fetcher"
	whyEmbeds      = "amber archives what a page embeds (hop E), as a replay needs it: img, embed, object, script, style sheets and their url()s, with either fetcher"
	whyFrames      = "amber archives a frame's page as an embed of the page that frames it (hop E) and follows its links, with either fetcher"
	whyMetaRefresh = "amber follows a <meta http-equiv=refresh>: a redirect (hop R) up to html_redir_threshold seconds, a link (hop L) above, with either fetcher"
	whyLinkTag     = "amber reads <link href>: style sheets, icons and preloads as embeds, the other rels (next, alternate, ...) as links"
	whyLinkTagJS   = "the browser fetcher archives the <link> resources a page loads (style sheets, icons, ...) but follows a and area links only: a <link rel=next>, say, is not followed (a feed's rel=alternate is read)"
	whyAction      = "amber follows the action of a form that submits with GET (or names no method) as a link, and submits no POST form"
	whyActionJS    = "the browser fetcher follows a and area links only: no form's action"
	whyScriptText  = "amber reads no URL from the text of scripts (use_javascript: yes runs them in a browser)"
	whyScriptJS    = "the browser runs the page's scripts: what they load is archived with the page and the a and area links they add are followed; a URL in a script's text that no script loads or links is not read"
	whyComment     = "amber reads no link in HTML comments"
	whyWML         = "amber does not read WML"
	whyLayer       = "amber does not read LAYER elements"
	whyMeta        = "amber reads no links from META elements but a refresh"
)

// linkExtraction accounts for the link_extraction section: each attrib says whether to read
// links from one kind of reference, and amber reads what its fetcher reads, always. A value
// that asks for what amber does is the same as amber's behaviour; one amber does in part
// (form actions, <link> and script URLs, by fetcher) differs; another is not supported
// yet. use_javascript (the collection's fetcher) decides between the two fetchers' answers.
func (c *conv) linkExtraction() {
	s := c.secs["link_extraction"]
	if s == nil {
		return
	}
	c.same(s, "amber reads the links its fetcher reads, whatever the file says: each attrib says whether it asks for that")
	js := c.c.Fetcher == "browser"
	for _, a := range s.Attribs {
		r := schema.section("link_extraction").node.attrib(a.Name)
		if r == nil || a.Type != Boolean {
			continue // the account reports it
		}
		// what amber does for this kind of reference: same when the file asks for it, and
		// otherwise not supported yet; or (part) differs when the file asks for it.
		var does bool
		var why string
		part := false
		switch r.Name {
		case "a", "area":
			does, why = true, whyAnchors
		case "embed", "object", "script", "style", "img":
			does, why = true, whyEmbeds
		case "frame":
			does, why = true, whyFrames
		case "meta_refresh":
			does, why = true, whyMetaRefresh
		case "link":
			does, why, part = true, whyLinkTag, js
			if js {
				why = whyLinkTagJS
			}
		case "action":
			does, why, part = !js, whyAction, !js
			if js {
				why = whyActionJS
			}
		case "script_java":
			does, why, part = js, whyScriptText, js
			if js {
				why = whyScriptJS
			}
		case "comment":
			why = whyComment
		case "card", "go":
			why = whyWML
		case "layer":
			why = whyLayer
		case "meta":
			why = whyMeta
		default:
			continue // a row the switch does not know: the account decides it with the table
		}
		switch {
		case a.Bool && part:
			c.note(noteDiffers, why, a)
		case a.Bool == does:
			c.same(a, why)
		default:
			c.note(string(Unsupported), why, a)
		}
	}
}
