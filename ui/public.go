package ui

import (
	"errors"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"earshot/store"
)

// publicMention is what a public page may show of a mention: no id, status,
// urgency, classifier or other internal field.
type publicMention struct {
	Source, Author, Text, URL, PublishedAt string
	Testimonial                            bool
}

type publicData struct {
	Title       string
	Name        string
	Description string
	Website     string
	Love        []publicMention
	Other       []publicMention
	Public      bool
}

// publicPage is /p/{slug}: the project's relevant mentions, testimonials
// first. 404 when the page is off or the project archived.
func (u *UI) publicPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	ctx := r.Context()
	notFound := func() {
		u.renderBare(w, http.StatusNotFound, "error", map[string]any{"Title": "Page not found", "Message": "There is no public page at this address."})
	}
	pr, err := u.store.ProjectBySlug(ctx, ps.ByName("slug"))
	if errors.Is(err, store.ErrNotFound) {
		notFound()
		return
	}
	if err != nil {
		u.serverError(w, r, err)
		return
	}
	if !pr.PublicEnabled || pr.Archived() {
		notFound()
		return
	}
	ms, err := u.store.PublicMentions(ctx, pr.ID, 200)
	if err != nil {
		u.serverError(w, r, err)
		return
	}
	d := publicData{Public: true, Title: pr.Name + " — what people say", Name: pr.Name, Description: pr.Description}
	if pr.Website != nil {
		d.Website = *pr.Website
	}
	for _, m := range ms {
		pm := publicMention{Source: m.Source, Author: m.AuthorHandle, Text: m.Text, URL: m.URL, PublishedAt: m.PublishedAt, Testimonial: m.Category == "testimonial" ||
			m.PublicVisibility == store.VisibilityFeatured} // an editor's pick leads the wall, in the store's order
		if pm.Testimonial {
			d.Love = append(d.Love, pm)
		} else {
			d.Other = append(d.Other, pm)
		}
	}
	w.Header().Set("Cache-Control", "no-cache") // unpublishing must take effect at once
	u.renderBare(w, http.StatusOK, "public", d)
}
