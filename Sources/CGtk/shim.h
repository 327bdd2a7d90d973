// GTK 4 and libadwaita (libgtk-4-dev, libadwaita-1-dev) for peerd-gtk
// (issue 45). GTK's casts and g_signal_connect are macros, and some of its
// calls are variadic, which Swift cannot call: these helpers wrap them.
#include <adwaita.h>
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <stdint.h>
#include <unistd.h>

// The main queue's wake descriptor and its drain (libdispatch's hooks for
// a run loop that owns the main thread; peerd's Poller uses them too).
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static gboolean peerd_gtk_main_queue_ready(gint fd, GIOCondition condition, gpointer data) {
    uint64_t count;
    (void)condition; (void)data;
    (void)!read(fd, &count, sizeof count);
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}

/// Runs the main queue (the main actor's work) from GLib's main loop on
/// this thread, whenever libdispatch pokes its descriptor: no polling.
static inline guint peerd_gtk_attach_main_queue(void) {
    return g_unix_fd_add(_dispatch_get_main_queue_handle_4CF(), G_IO_IN, peerd_gtk_main_queue_ready, NULL);
}

static inline GtkWindow *peerd_gtk_window(GtkWidget *w) { return GTK_WINDOW(w); }
static inline GtkBox *peerd_gtk_box(GtkWidget *w) { return GTK_BOX(w); }
static inline GtkButton *peerd_gtk_button(GtkWidget *w) { return GTK_BUTTON(w); }
static inline GtkLabel *peerd_gtk_label(GtkWidget *w) { return GTK_LABEL(w); }
static inline GtkListBox *peerd_gtk_list_box(GtkWidget *w) { return GTK_LIST_BOX(w); }
static inline GtkListBoxRow *peerd_gtk_list_box_row(GtkWidget *w) { return GTK_LIST_BOX_ROW(w); }
static inline GtkScrolledWindow *peerd_gtk_scrolled(GtkWidget *w) { return GTK_SCROLLED_WINDOW(w); }
static inline AdwLeaflet *peerd_adw_leaflet(GtkWidget *w) { return ADW_LEAFLET(w); }
static inline GtkWidget *peerd_gtk_widget(void *w) { return GTK_WIDGET(w); }
static inline GtkEditable *peerd_gtk_editable(GtkWidget *w) { return GTK_EDITABLE(w); }
static inline GtkEntry *peerd_gtk_entry(GtkWidget *w) { return GTK_ENTRY(w); }
static inline GtkProgressBar *peerd_gtk_progress_bar(GtkWidget *w) { return GTK_PROGRESS_BAR(w); }

// The handlers take every object as a GtkWidget: GTK 4 declares most of
// its types final and opaque, which Swift sees as OpaquePointer.

/// A button's "clicked".
static inline gulong peerd_gtk_on_clicked(GtkWidget *button, void (*handler)(GtkWidget *, gpointer), gpointer data) {
    return g_signal_connect_data(button, "clicked", G_CALLBACK(handler), data, NULL, 0);
}

/// A list box's "row-selected" (row NULL: nothing selected).
static inline gulong peerd_gtk_on_row_selected(GtkWidget *list, void (*handler)(GtkWidget *, GtkWidget *, gpointer), gpointer data) {
    return g_signal_connect_data(list, "row-selected", G_CALLBACK(handler), data, NULL, 0);
}

/// A window's "close-request".
static inline gulong peerd_gtk_on_close(GtkWidget *window, gboolean (*handler)(GtkWidget *, gpointer), gpointer data) {
    return g_signal_connect_data(window, "close-request", G_CALLBACK(handler), data, NULL, 0);
}

/// A widget's accessible name (what the tests and screen readers find it by).
static inline void peerd_gtk_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/// What a file chooser or a drop hands over: `count` local paths (NULL
/// when the user cancelled), valid only during the call.
typedef void (*peerd_gtk_paths_handler)(const char *const *paths, int count, gpointer data);

/// Collects the local paths of a GListModel of GFiles (files without one,
/// such as a phone's MTP file, are skipped) and hands them to `handler`.
static inline void peerd_gtk_hand_paths(GListModel *files, peerd_gtk_paths_handler handler, gpointer data) {
    guint n = files ? g_list_model_get_n_items(files) : 0;
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < n; i++) {
        GFile *file = g_list_model_get_item(files, i);
        char *path = file ? g_file_get_path(file) : NULL;
        if (path) g_ptr_array_add(paths, path);
        if (file) g_object_unref(file);
    }
    handler((const char *const *)paths->pdata, (int)paths->len, data);
    g_ptr_array_unref(paths);
}

typedef struct { peerd_gtk_paths_handler handler; gpointer data; } peerd_gtk_chooser_call;

static void peerd_gtk_chooser_response(GtkNativeDialog *dialog, int response, gpointer user) {
    peerd_gtk_chooser_call *call = user;
    if (response == GTK_RESPONSE_ACCEPT) {
        GListModel *files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(dialog));
        peerd_gtk_hand_paths(files, call->handler, call->data);
        if (files) g_object_unref(files);
    } else {
        call->handler(NULL, 0, call->data);
    }
    g_free(call);
    g_object_unref(dialog);
}

/// Opens the desktop's file chooser (the portal's where there is one,
/// GTK's own otherwise) over `parent`: files to open, several at once, or
/// one folder (`folder`); `handler` hears once with the choice.
static inline void peerd_gtk_choose(GtkWidget *parent, gboolean folder, const char *title, const char *accept,
                                    peerd_gtk_paths_handler handler, gpointer data) {
    GtkFileChooserNative *dialog = gtk_file_chooser_native_new(title, GTK_WINDOW(parent),
        folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN, accept, "Cancel");
    gtk_file_chooser_set_select_multiple(GTK_FILE_CHOOSER(dialog), !folder);
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(dialog), TRUE);
    peerd_gtk_chooser_call *call = g_new0(peerd_gtk_chooser_call, 1);
    call->handler = handler;
    call->data = data;
    g_signal_connect_data(dialog, "response", G_CALLBACK(peerd_gtk_chooser_response), call, NULL, 0);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(dialog));
}

typedef struct { peerd_gtk_paths_handler handler; gpointer data; } peerd_gtk_drop_call;

static gboolean peerd_gtk_dropped(GtkDropTarget *target, const GValue *value, double x, double y, gpointer user) {
    peerd_gtk_drop_call *call = user;
    (void)target; (void)x; (void)y;
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST)) return FALSE;
    GSList *list = gdk_file_list_get_files(g_value_get_boxed(value));
    GListStore *store = g_list_store_new(G_TYPE_FILE);
    for (GSList *item = list; item; item = item->next) g_list_store_append(store, item->data);
    g_slist_free(list);
    peerd_gtk_hand_paths(G_LIST_MODEL(store), call->handler, call->data);
    g_object_unref(store);
    return TRUE;
}

/// Takes files dropped on `widget` (from a file manager): `handler`
/// hears their local paths at each drop.
static inline void peerd_gtk_accept_file_drops(GtkWidget *widget, peerd_gtk_paths_handler handler, gpointer data) {
    GtkDropTarget *target = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
    peerd_gtk_drop_call *call = g_new0(peerd_gtk_drop_call, 1);
    call->handler = handler;
    call->data = data;
    g_signal_connect_data(target, "drop", G_CALLBACK(peerd_gtk_dropped), call, (GClosureNotify)(void (*)(void))g_free, 0);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(target));
}
