package ui

import (
	"errors"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
	"earshot/vocab"
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
	Featured    []publicMention
	Love        []publicMention
	Other       []publicMention
	Public      bool
}

// publicPage is /p/{slug}: the project's curated wall (Service.PublicPage,
// docs/decisions.md#public-page): the mentions an editor featured, then
// testimonials, then other relevant mentions that are neither negative nor
// misinformation. 404 when the page is off or the project archived.
func (u *UI) publicPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	ctx := r.Context()
	notFound := func() {
		u.renderBare(w, http.StatusNotFound, "error", map[string]any{"Title": "Page not found", "Message": "There is no public page at this address."})
	}
	pg, err := u.svc.PublicPage(ctx, ps.ByName("slug"))
	if e := (*capability.Error)(nil); errors.As(err, &e) && e.Status == http.StatusNotFound {
		notFound()
		return
	}
	if err != nil {
		u.serverError(w, r, err)
		return
	}
	d := publicData{Public: true, Title: pg.Name + " — what people say", Name: pg.Name, Description: pg.Description}
	if pg.Website != nil {
		d.Website = *pg.Website
	}
	for _, m := range pg.Items {
		pm := publicMention{Source: m.Source, Author: m.AuthorHandle, Text: m.Text, URL: m.URL, PublishedAt: m.PublishedAt, Testimonial: m.Category == "testimonial"}
		switch {
		case m.PublicVisibility == vocab.VisibilityFeatured:
			d.Featured = append(d.Featured, pm)
		case pm.Testimonial:
			d.Love = append(d.Love, pm)
		default:
			d.Other = append(d.Other, pm)
		}
	}
	w.Header().Set("Cache-Control", "no-cache") // unpublishing must take effect at once
	u.renderBare(w, http.StatusOK, "public", d)
}

type wallData struct {
	Out  *capability.PublicPageOut
	Rows rowsData
}

// wallPreview shows editors the public page's mentions in its order, also
// while the page is off, each with its feature/hide controls.
func (u *UI) wallPreview(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "Public page preview", "settings"
	o := u.exec(r.Context(), pg.P, "preview_public_page", &capability.Empty{})
	if o.Err != nil {
		u.failPage(w, pg, o.Err)
		return
	}
	out := o.Data.(*capability.PublicPageOut)
	d := &wallData{Out: out, Rows: rowsData{CanWrite: pg.Can(capability.MentionsWrite), CSRF: pg.CSRF, Back: pg.Path, Labels: u.categoryLabels(r, pg.P), Zone: pg.Zone,
		Items: out.Items, Keywords: map[string][]string{}, Compact: compact(r), Wall: true}}
	pg.Data = d
	u.render(w, pg, "wall")
}
