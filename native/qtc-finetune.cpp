// Owns: qtc's fine-tuning driver over llama.cpp's llama_opt_* API: full fine-tune of an F32 GGUF on rendered chat
// samples, special tokens tokenized as tokens, loss on assistant tokens only, seeded, progress lines on stderr.
//
// Input (--data): "QTCTRAIN 1\n" then pieces "<kind> <bytes>\n<bytes>"; kind m/c = prompt markup/content,
// M/C = assistant markup/content (markup's added-token spellings are tokens, content's never are: tokenized as
// qtc's runtime tokenizes a prompt), E ends a sample.
// Output lines on stderr that qtc parses:
//   qtc-train start samples=N tokens=T trained=A windows=W ctx=C
//   qtc-train step epoch=E/EN step=S/SN loss=L acc=A eta_s=X
//   qtc-train epoch epoch=E/EN loss=L acc=A seconds=X eta_s=Y
//   qtc-train done out=PATH seconds=X
//   qtc-train eval loss=L windows=W            (--eval 1: the mean loss of the data's windows, nothing trained)
//
// LoRA (--lora-init ADAPTER): the adapter (an untrained one qtc writes: A random, B zero) is applied to the
// context and its A and B tensors are the only trainable parameters; the base stays frozen and --out receives
// the trained adapter (same names and metadata), which llama.cpp loads with --lora.
//   qtc-train error code=CODE message=TEXT
//
// Masking: qtc's llama.cpp patch (native/llama-training.patch) makes llama_opt_epoch output logits only where a
// label is given (>= 0), so prompt positions cost no output head and get no gradient. A window without
// any label still outputs its last position, labelled with the last vocabulary id (a padding token no text
// produces): llama_opt_epoch's cross-entropy backward is softmax(logits) - labels, so an eval callback on the
// scheduler rewrites that row of the labels tensor to the model's own softmax just before the loss node runs,
// and its gradient is exactly zero.

#include "ggml-backend.h"
#include "ggml-opt.h"
#include "ggml.h"
#include "llama.h"
#include "gguf.h"
// Internal: the adapter's A/B tensors (the driver is compiled against this very source; see trainer-build.ts).
#include "llama-adapter.h"
#include "qtc-tokenize.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Args {
    std::string model, data, out, dump;  // dump: --dump-tokens FILE (no training)
    int epochs = 1, ctx = 1024, threads = 2, seed = 0, max_steps = 0;
    float lr = 1e-3f, lr_end = -1.0f, wd = 0.0f;  // lr_end < 0: constant lr
    std::string optimizer = "adamw";  // or "sgd": plain steps whose result a test can compute by hand
    bool eval = false;                // forward passes only: print the loss, train and write nothing
    std::string lora_init;            // train this LoRA adapter only; --out is then the trained adapter
};

struct Piece { char kind; std::string text; };
struct Sample { std::vector<Piece> pieces; };

[[noreturn]] void die(const char * code, const std::string & message) {
    std::fprintf(stderr, "qtc-train error code=%s message=%s\n", code, message.c_str());
    std::exit(code[0] == 'i' ? 2 : 1);  // invalid_option → 2, others → 1
}

Args parse_args(int argc, char ** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string k = argv[i];
        if (i + 1 >= argc) die("invalid_option", "missing value after " + k);
        std::string v = argv[++i];
        if (k == "--model") a.model = v;
        else if (k == "--data") a.data = v;
        else if (k == "--out") a.out = v;
        else if (k == "--dump-tokens") a.dump = v;
        else if (k == "--epochs") a.epochs = std::atoi(v.c_str());
        else if (k == "--ctx") a.ctx = std::atoi(v.c_str());
        else if (k == "--threads") a.threads = std::atoi(v.c_str());
        else if (k == "--seed") a.seed = std::atoi(v.c_str());
        else if (k == "--max-steps") a.max_steps = std::atoi(v.c_str());
        else if (k == "--lr") a.lr = std::strtof(v.c_str(), nullptr);
        else if (k == "--lr-end") a.lr_end = std::strtof(v.c_str(), nullptr);
        else if (k == "--wd") a.wd = std::strtof(v.c_str(), nullptr);
        else if (k == "--optimizer") a.optimizer = v;
        else if (k == "--eval") a.eval = v == "1";
        else if (k == "--lora-init") a.lora_init = v;
        else die("invalid_option", "unknown flag " + k);
    }
    if (a.model.empty() || a.data.empty() || (a.out.empty() && a.dump.empty() && !a.eval)) die("invalid_option", "--model, --data and --out (or --dump-tokens, or --eval 1) are required");
    if (a.optimizer != "adamw" && a.optimizer != "sgd") die("invalid_option", "--optimizer is adamw or sgd");
    if (a.epochs < 1 || a.ctx < 32 || a.ctx % (a.ctx > 256 ? 256 : 32) != 0 || a.threads < 1) die("invalid_option", "--epochs >= 1, --ctx a multiple of 32 (of 256 above 256), --threads >= 1");
    return a;
}

// The most bytes one piece may hold; qtc's writer (src/training/trainer-input.ts) refuses larger ones first.
constexpr long MAX_PIECE_BYTES = 64L << 20;

std::vector<Sample> read_samples(const std::string & file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) die("file_not_found", "cannot read " + file);
    std::string header;
    std::getline(in, header);
    if (header != "QTCTRAIN 1") die("invalid_option", file + " is not a qtc training file (QTCTRAIN 1)");
    std::vector<Sample> out;
    Sample cur;
    std::string line;
    while (std::getline(in, line)) {
        char kind = 0;
        long n = -1;
        if (std::sscanf(line.c_str(), "%c %ld", &kind, &n) != 2 || n < 0) die("invalid_option", "bad piece header in " + file);
        if (n > MAX_PIECE_BYTES) die("invalid_option", "a piece of " + std::to_string(n) + " bytes in " + file + " is over the trainer's " + std::to_string(MAX_PIECE_BYTES) + "-byte bound");
        if (kind == 'E') { out.push_back(std::move(cur)); cur = Sample{}; continue; }
        if (!std::strchr("mcMC", kind)) die("invalid_option", "bad piece kind in " + file);
        std::string text(static_cast<size_t>(n), '\0');
        in.read(text.data(), n);
        if (in.gcount() != n) die("invalid_option", "truncated piece in " + file);
        cur.pieces.push_back({kind, std::move(text)});
    }
    return out;
}

using qtc::Added;
using qtc::MarkupPart;
using qtc::added_tokens;
using qtc::split_markup;
using qtc::tokenize_as_text;

// A sample's tokens and, per token, whether it is trained (inside the assistant turn).
void sample_tokens(const llama_vocab * vocab, const std::vector<Added> & added, const Sample & s, std::vector<llama_token> & toks, std::vector<char> & train) {
    std::string run;
    bool run_train = false;
    auto flush = [&]() {
        // The header reports; the driver owns its error lines (and exit codes).
        try { tokenize_as_text(vocab, added, run, toks); } catch (const qtc::TokenizeError & e) { die("internal", e.what()); }
        train.resize(toks.size(), run_train);
        run.clear();
    };
    for (const Piece & p : s.pieces) {
        const bool assistant = p.kind == 'M' || p.kind == 'C';
        if (assistant != run_train) { flush(); run_train = assistant; }
        if (p.kind == 'c' || p.kind == 'C') { run += p.text; continue; }
        for (const MarkupPart & part : split_markup(added, p.text)) {
            if (part.marker < 0) { run += part.text; continue; }
            flush();
            toks.push_back(part.marker);
            train.push_back(assistant);
        }
    }
    flush();
}

// One training window: tokens and next-token labels; untrained positions carry NO_LABEL.
constexpr llama_token NO_LABEL = -1;
struct Window { std::vector<llama_token> tokens, labels; int trained = 0; };

Window to_window(const llama_vocab * vocab, const std::vector<Added> & added, const Sample & s, int ctx, llama_token pad) {
    std::vector<llama_token> toks;
    std::vector<char> train;
    sample_tokens(vocab, added, s, toks, train);
    // Keep the end (the assistant turn) when a sample is longer than the window: cut the prompt's start.
    size_t keep = std::min(toks.size(), (size_t) ctx + 1);
    size_t from = toks.size() - keep;
    Window w;
    w.tokens.assign(ctx, pad);
    w.labels.assign(ctx, NO_LABEL);
    for (size_t i = 0; i + 1 < keep; ++i) {
        w.tokens[i] = toks[from + i];
        if (train[from + i + 1]) { w.labels[i] = toks[from + i + 1]; w.trained++; }
    }
    return w;
}

// --dump-tokens FILE: each sample's tokens on one line ("<id>" untrained, "+<id>" trained); nothing is trained.
void dump_tokens(const llama_vocab * vocab, const std::vector<Added> & added, const std::vector<Sample> & samples, const std::string & file) {
    std::ofstream out(file, std::ios::binary);
    if (!out) die("invalid_option", "cannot write " + file);
    for (const Sample & s : samples) {
        std::vector<llama_token> toks;
        std::vector<char> train;
        sample_tokens(vocab, added, s, toks, train);
        for (size_t i = 0; i < toks.size(); ++i) out << (i ? " " : "") << (train[i] ? "+" : "") << toks[i];
        out << "\n";
    }
    if (!out) die("training_failed", "cannot write " + file);
}

struct MaskState {
    double loss_sum = 0, seen = 0, correct = 0;  // over trained positions, this epoch
};

// Split the graph right after the logits so they are computed when the loss node is asked about.
bool eval_callback(struct ggml_tensor * t, bool ask, void * ud) {
    auto * st = static_cast<MaskState *>(ud);
    if (!ask) return true;
    if (std::strcmp(t->name, "result_output") == 0) return true;
    if (t->op != GGML_OP_CROSS_ENTROPY_LOSS) return false;
    ggml_tensor * logits = t->src[0];
    ggml_tensor * labels = t->src[1];
    if (!ggml_backend_buffer_is_host(logits->buffer) || !ggml_backend_buffer_is_host(labels->buffer)) {
        die("unsupported_model", "the driver masks labels on the CPU; run it without GPU offload");
    }
    const int64_t nv = labels->ne[0], rows = labels->ne[1];
    for (int64_t r = 0; r < rows; ++r) {
        float * lab = (float *) ((char *) labels->data + r * labels->nb[1]);
        const float * lg = (const float *) ((const char *) logits->data + r * logits->nb[1]);
        const bool masked = lab[nv - 1] > 0.5f;  // the patch's label for a window's forced output
        const int64_t label = masked ? -1 : std::max_element(lab, lab + nv) - lab;
        float mx = lg[0];
        int64_t arg = 0;
        for (int64_t i = 1; i < nv; ++i) if (lg[i] > mx) { mx = lg[i]; arg = i; }
        double sum = 0;
        if (masked) {
            // One pass writes exp into the labels row, a second scales it: the row becomes softmax(logits).
            for (int64_t i = 0; i < nv; ++i) { lab[i] = std::exp(lg[i] - mx); sum += lab[i]; }
            const float inv = (float) (1.0 / sum);
            for (int64_t i = 0; i < nv; ++i) lab[i] *= inv;
            continue;
        }
        for (int64_t i = 0; i < nv; ++i) sum += std::exp(lg[i] - mx);
        st->loss_sum += -((double) lg[label] - mx - std::log(sum));
        st->seen += 1;
        st->correct += arg == label ? 1 : 0;
    }
    return false;
}

// Linear decay from --lr to --lr-end over the run: a high rate learns the fixed markup fast, the low end lets
// the sampled tokens settle (a constant high rate diverged here in its second epoch).
struct LrSchedule {
    ggml_opt_optimizer_params base;
    float lr0 = 0, lr_end = -1;
    int64_t step = 0, total = 1;
};

ggml_opt_optimizer_params scheduled_params(void * ud) {
    auto * s = static_cast<LrSchedule *>(ud);
    ggml_opt_optimizer_params p = s->base;
    if (s->lr_end >= 0) {
        const double f = std::min(1.0, (double) s->step / (double) std::max<int64_t>(1, s->total - 1));
        p.adamw.alpha = (float) (s->lr0 + (s->lr_end - s->lr0) * f);
        p.sgd.alpha = p.adamw.alpha;
    }
    s->step++;  // ggml_opt_eval asks once per optimizer step
    return p;
}

struct Progress {
    MaskState * mask;
    int epoch, epochs;
    std::chrono::steady_clock::time_point start;
    int64_t steps_done_before = 0, steps_total = 0, last_printed = -1;
};

Progress * g_progress_for_callback(Progress * set = nullptr) {
    // The opt epoch callback has no user data; one pointer for the process's single training run.
    static Progress * p = nullptr;
    if (set) p = set;
    return p;
}

void step_callback(bool train, ggml_opt_context_t, ggml_opt_dataset_t, ggml_opt_result_t, int64_t ibatch, int64_t ibatch_max, int64_t) {
    Progress * p = g_progress_for_callback();
    if (!train || !p) return;
    const int64_t done = p->steps_done_before + ibatch;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - p->start).count();
    const double eta = done > 0 ? secs / done * (p->steps_total - done) : 0;
    const int64_t every = std::max<int64_t>(1, ibatch_max / 10);
    if (ibatch % every != 0 && ibatch != ibatch_max) return;
    const MaskState * m = p->mask;
    std::fprintf(stderr, "qtc-train step epoch=%d/%d step=%lld/%lld loss=%.4f acc=%.4f eta_s=%.1f\n", p->epoch, p->epochs,
                 (long long) ibatch, (long long) ibatch_max, m->seen ? m->loss_sum / m->seen : 0.0, m->seen ? m->correct / m->seen : 0.0, eta);
}

std::string meta(const llama_model * model, const char * key) {
    char buf[256];
    return llama_model_meta_val_str(model, key, buf, sizeof buf) >= 0 ? std::string(buf) : std::string();
}

// llama_opt_init sets the model's training context to the window's, and the saver writes it: put the base's
// back, or llama.cpp clamps every later context to 256 tokens (a bench prompt is longer). The key is patched in
// place (a u32 the saver wrote: length-prefixed name, type 4, value); rewriting the file through gguf crashed.
void restore_context_length(const std::string & file, const std::string & key, uint32_t value) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    if (!f) die("training_failed", "cannot reopen " + file);
    std::string head(64u << 20, '\0');
    f.read(head.data(), (std::streamsize) head.size());
    head.resize((size_t) f.gcount());
    f.clear();
    std::string pat;
    const uint64_t n = key.size();
    const uint32_t u32 = 4;  // GGUF_TYPE_UINT32
    pat.append((const char *) &n, sizeof n).append(key).append((const char *) &u32, sizeof u32);
    const size_t at = head.find(pat);
    if (at == std::string::npos) die("training_failed", "no u32 " + key + " in " + file);
    f.seekp((std::streamoff) (at + pat.size()));
    f.write((const char *) &value, sizeof value);
    if (!f) die("training_failed", "cannot write " + file);
}

bool filter_none(const struct ggml_tensor *, void *) { return false; }

// Write the trained adapter: the init file's metadata, each A and B tensor read back from the backend.
void save_adapter(const llama_adapter_lora * ad, const std::string & init, const std::string & out) {
    ggml_context * meta = nullptr;
    gguf_init_params gp{/*no_alloc =*/ true, &meta};
    gguf_context * src = gguf_init_from_file(init.c_str(), gp);
    if (!src) die("training_failed", "cannot reread " + init);
    gguf_context * dst = gguf_init_empty();
    gguf_set_kv(dst, src);
    size_t bytes = 0;
    for (const auto & kv : ad->ab_map) bytes += ggml_nbytes(kv.second.a) + ggml_nbytes(kv.second.b);
    ggml_init_params ip{bytes + (2 * ad->ab_map.size() + 8) * ggml_tensor_overhead(), nullptr, /*no_alloc =*/ false};
    ggml_context * data = ggml_init(ip);
    // In the init file's order, so the output's layout is the input's.
    for (int64_t i = 0; i < gguf_get_n_tensors(src); ++i) {
        const std::string name = gguf_get_tensor_name(src, i);
        const bool is_a = name.size() > 7 && name.compare(name.size() - 7, 7, ".lora_a") == 0;
        auto it = ad->ab_map.find(name.substr(0, name.size() - 7));
        if (it == ad->ab_map.end()) die("training_failed", "adapter tensor " + name + " was not loaded");
        ggml_tensor * dev = is_a ? it->second.a : it->second.b;
        ggml_tensor * t = ggml_dup_tensor(data, dev);
        ggml_set_name(t, name.c_str());
        ggml_backend_tensor_get(dev, t->data, 0, ggml_nbytes(dev));
        gguf_add_tensor(dst, t);
    }
    if (!gguf_write_to_file(dst, out.c_str(), false)) die("training_failed", "cannot write " + out);
    gguf_free(dst);
    gguf_free(src);
    ggml_free(data);
    ggml_free(meta);
}

}  // namespace

int main(int argc, char ** argv) {
    const Args a = parse_args(argc, argv);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Sample> samples = read_samples(a.data);
    if (samples.empty()) die("invalid_option", a.data + " holds no samples");

    llama_log_set([](ggml_log_level level, const char * text, void *) { if (level >= GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr); }, nullptr);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.load_mode = LLAMA_LOAD_MODE_NONE;  // the weights are written in place
    mp.n_gpu_layers = 0;
    mp.vocab_only = !a.dump.empty();
    llama_model * model = llama_model_load_from_file(a.model.c_str(), mp);
    if (!model) die("model_load_failed", "llama.cpp could not load " + a.model);
    if (!a.dump.empty()) {
        const llama_vocab * v = llama_model_get_vocab(model);
        dump_tokens(v, added_tokens(v), samples, a.dump);
        llama_model_free(model);
        return 0;
    }
    // From the tensors, not general.file_type: llama.cpp's saver leaves that key out, and a tuned model must be
    // able to train again (the stand-ins train in stages).
    char desc[256];
    llama_model_desc(model, desc, sizeof desc);
    if (!std::strstr(desc, "all F32") && !a.lora_init.empty()) {
        // Measured with a Q8_0 base: the backward pass through the frozen quantized weights aborts in ggml's scheduler.
        die("unsupported_model", a.model + " is not an F32 GGUF (" + desc + "); LoRA training here needs an F32 base too (llama.cpp's backward pass through quantized weights aborts): write one with qtc make-model --dtype f32");
    }
    if (!std::strstr(desc, "all F32")) {
        die("unsupported_model", a.model + " is not an F32 GGUF (" + desc + "); llama.cpp trains F32 weights only: write one with qtc make-model --dtype f32");
    }
    const std::string ctx_key = meta(model, "general.architecture") + ".context_length";
    const std::string ctx_train = meta(model, ctx_key.c_str());
    const llama_vocab * vocab = llama_model_get_vocab(model);
    const llama_token pad = llama_vocab_eos(vocab);
    const std::vector<Added> added = added_tokens(vocab);

    std::vector<Window> windows;
    long tokens = 0, trained = 0;
    for (const Sample & s : samples) {
        windows.push_back(to_window(vocab, added, s, a.ctx, pad));
        tokens += (long) a.ctx;
        trained += windows.back().trained;
    }
    std::fprintf(stderr, "qtc-train start samples=%zu tokens=%ld trained=%ld windows=%zu ctx=%d\n", samples.size(), tokens, trained, windows.size(), a.ctx);

    MaskState mask;
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = a.ctx;
    cp.n_batch = a.ctx;
    // One window is one ubatch: with qtc's llama.cpp patch, training attention sees only its own ubatch (the KV
    // cache's copies carry no gradient), so a window split over ubatches would lose its earlier part.
    cp.n_ubatch = a.ctx;
    cp.n_threads = cp.n_threads_batch = a.threads;
    cp.type_k = cp.type_v = GGML_TYPE_F32;  // OUT_PROD has no F16 backward
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.cb_eval = eval_callback;
    cp.cb_eval_user_data = &mask;
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) die("training_failed", "could not make a llama.cpp context");
    llama_adapter_lora * adapter = nullptr;
    if (!a.lora_init.empty()) {
        adapter = llama_adapter_lora_init(model, a.lora_init.c_str());
        if (!adapter) die("invalid_option", a.lora_init + " is not a LoRA adapter of this model");
        float scale = 1.0f;
        if (llama_set_adapters_lora(ctx, &adapter, 1, &scale) != 0) die("training_failed", "could not apply the LoRA adapter");
        for (auto & kv : adapter->ab_map) {
            ggml_set_param(kv.second.a);
            ggml_set_param(kv.second.b);
        }
        // Setting adapters makes the context rebuild its scheduler at the next decode; do that now, before
        // llama_opt_init keeps a pointer to the scheduler.
        llama_token first = pad;
        llama_batch b = llama_batch_get_one(&first, 1);
        if (llama_decode(ctx, b) != 0) die("training_failed", "the warm-up decode with the adapter failed");
    }

    ggml_opt_optimizer_params op = ggml_opt_get_default_optimizer_params(nullptr);
    op.adamw.alpha = a.lr;
    op.adamw.wd = a.wd;
    op.sgd.alpha = a.lr;
    op.sgd.wd = a.wd;
    llama_opt_params lo{};
    lo.n_ctx_train = 0;
    lo.param_filter = adapter ? filter_none : llama_opt_param_filter_all;  // LoRA: the base stays frozen
    // llama.cpp pads a context to 256 tokens and llama_opt_epoch reads one context's worth per data point, so a
    // data point packs n_ctx / --ctx windows back to back; each window is one ubatch, one optimizer step, and
    // attends over itself only.
    const int64_t n_ctx = (int64_t) llama_n_ctx(ctx);
    if (n_ctx % a.ctx != 0) die("invalid_option", "--ctx must divide the context llama.cpp allocates (" + std::to_string(n_ctx) + ")");
    const size_t pack = (size_t) (n_ctx / a.ctx);
    const size_t per_epoch = a.max_steps > 0 ? std::min(windows.size(), (size_t) a.max_steps) : windows.size();
    const size_t points = (per_epoch + pack - 1) / pack;
    LrSchedule sched{op, a.lr, a.lr_end, 0, (int64_t) (points * pack) * a.epochs};
    lo.get_opt_pars = scheduled_params;
    lo.get_opt_pars_ud = &sched;
    lo.optimizer_type = a.optimizer == "sgd" ? GGML_OPT_OPTIMIZER_TYPE_SGD : GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    llama_opt_init(ctx, model, lo);
    // The context installs cb_eval on its scheduler only when it decodes; the optimizer shares that scheduler.
    {
        llama_token first = pad;
        llama_batch b = llama_batch_get_one(&first, 1);
        if (llama_decode(ctx, b) != 0) die("training_failed", "the warm-up decode failed");
    }

    std::mt19937 rng((uint32_t) a.seed);
    Progress prog{&mask, 0, a.epochs, std::chrono::steady_clock::now(), 0, (int64_t) (points * pack) * a.epochs};
    g_progress_for_callback(&prog);
    ggml_opt_result_t rt = ggml_opt_result_init(), re = ggml_opt_result_init();
    for (int e = 1; e <= a.epochs; ++e) {
        std::vector<size_t> order(windows.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_I32, GGML_TYPE_I32, n_ctx, n_ctx, (int64_t) points, 1);
        auto * dd = (llama_token *) ggml_opt_dataset_data(ds)->data;
        auto * dl = (llama_token *) ggml_opt_dataset_labels(ds)->data;
        std::fill(dd, dd + points * n_ctx, pad);  // a last, partly filled data point is padding, fully masked
        std::fill(dl, dl + points * n_ctx, NO_LABEL);
        for (size_t i = 0; i < per_epoch; ++i) {
            std::copy(windows[order[i]].tokens.begin(), windows[order[i]].tokens.end(), dd + i * a.ctx);
            std::copy(windows[order[i]].labels.begin(), windows[order[i]].labels.end(), dl + i * a.ctx);
        }
        mask.loss_sum = mask.seen = mask.correct = 0;
        prog.epoch = e;
        const auto te = std::chrono::steady_clock::now();
        if (a.eval) {
            // idata_split 0: every data point is evaluated (forward only); the eval callback sums the loss.
            llama_opt_epoch(ctx, ds, rt, re, 0, nullptr, nullptr);
            std::fprintf(stderr, "qtc-train eval loss=%.10f windows=%zu\n", mask.seen ? mask.loss_sum / mask.seen : 0.0, per_epoch);
            return 0;
        }
        llama_opt_epoch(ctx, ds, rt, re, (int64_t) points, step_callback, nullptr);
        prog.steps_done_before += (int64_t) (points * pack);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - te).count();
        std::fprintf(stderr, "qtc-train epoch epoch=%d/%d loss=%.4f acc=%.4f seconds=%.1f eta_s=%.1f\n", e, a.epochs,
                     mask.seen ? mask.loss_sum / mask.seen : 0.0, mask.seen ? mask.correct / mask.seen : 0.0, secs, secs * (a.epochs - e));
        ggml_opt_result_reset(rt);
        ggml_opt_result_reset(re);
        ggml_opt_dataset_free(ds);
    }
    ggml_opt_result_free(rt);
    ggml_opt_result_free(re);
    if (adapter) {
        save_adapter(adapter, a.lora_init, a.out);
    } else {
        llama_model_save_to_file(model, a.out.c_str());
        if (!ctx_train.empty()) restore_context_length(a.out, ctx_key, (uint32_t) std::stoul(ctx_train));
    }
    std::fprintf(stderr, "qtc-train done out=%s seconds=%.1f\n", a.out.c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
