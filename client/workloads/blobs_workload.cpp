// The blobs workload (client/workloads/workloads.hpp): documents with a 16 KiB text body and a 4
// KiB binary thumbnail.
#include "client/workloads/workload_text.hpp"
#include "client/workloads/workload_values.hpp"
#include "client/workloads/workloads.hpp"

#include "proto/base64.hpp"
#include "proto/json_writer.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace objwire::workloads {
namespace {

using namespace detail;

class blobs_workload final : public workload {
  public:
    explicit blobs_workload(std::uint64_t seed) : rng_(seed) {
        make_vocabulary();
        title_.reserve(128);
        body_.reserve(body_size + 128);
        thumb_.resize(thumb_size);
    }

    std::string_view name() const override { return "blobs"; }
    std::uint64_t default_count() const override { return 20'000; }

    void next(message& out) override {
        draw();
        auto& f = assign_record(out.root, type_);
        assign_int(f[0], id_);
        assign_string(f[1], title_);
        assign_string(f[2], body_);
        assign_bytes(f[3]).assign(thumb_.begin(), thumb_.end());
        out.objects.clear();
    }

    void next_json(std::string& out) override {
        draw();
        out += R"({"$type":"Doc","id":)";
        append_int(out, id_);
        out += R"(,"title":)";
        append_json_string(out, title_);
        out += R"(,"body":)";
        append_json_string(out, body_);
        out += R"(,"thumb":{"$bytes":")";
        append_base64(out, thumb_);
        out += R"("}})";
    }

  private:
    static constexpr std::size_t vocabulary_size = 320;
    static constexpr std::size_t body_size = 16 * 1024;
    static constexpr std::size_t thumb_size = 4 * 1024;
    // A word is picked by below(zipf_range) through a table: word r gets a share of the range
    // proportional to 1/(r+1), so a few short words dominate as in natural text.
    static constexpr std::size_t zipf_range = 1 << 16;

    // Pronounceable words of 1-3 syllables, all distinct, shortest first so that the most
    // frequent words are the short ones.
    void make_vocabulary() {
        static constexpr std::string_view consonants = "bcdfghklmnprstvwz";
        static constexpr std::string_view vowels = "aeiou";
        while (vocabulary_.size() < vocabulary_size) {
            std::string word;
            auto syllables = 1 + rng_.below(3);
            for (std::uint64_t s = 0; s < syllables; ++s) {
                word += consonants[rng_.below(consonants.size())];
                word += vowels[rng_.below(vowels.size())];
                if (rng_.below(3) == 0) word += consonants[rng_.below(consonants.size())];
            }
            if (std::find(vocabulary_.begin(), vocabulary_.end(), word) == vocabulary_.end())
                vocabulary_.push_back(std::move(word));
        }
        std::stable_sort(vocabulary_.begin(), vocabulary_.end(),
                         [](const auto& a, const auto& b) { return a.size() < b.size(); });

        // Integer shares keep the table identical everywhere; every word gets at least one slot.
        std::array<std::uint64_t, vocabulary_size> weight{};
        std::uint64_t total = 0;
        for (std::size_t r = 0; r < vocabulary_size; ++r)
            total += weight[r] = 1'000'000 / (r + 1);
        zipf_table_.resize(zipf_range);
        std::size_t slot = 0;
        std::uint64_t cumulative = 0;
        for (std::size_t r = 0; r < vocabulary_size; ++r) {
            cumulative += weight[r];
            auto end = std::max<std::size_t>(slot + 1, cumulative * zipf_range / total);
            if (r + 1 == vocabulary_size) end = zipf_range;
            for (; slot < end; ++slot)
                zipf_table_[slot] = static_cast<std::uint16_t>(r);
        }
        for (auto& next : successor_)
            next = zipf_word();
    }

    std::size_t zipf_word() { return zipf_table_[rng_.below(zipf_range)]; }

    // Appends word `w`, capitalised when it starts a sentence.
    void append_word(std::string& s, std::size_t w, bool capital) {
        auto start = s.size();
        s += vocabulary_[w];
        if (capital) s[start] = static_cast<char>(s[start] - 'a' + 'A');
    }

    // One Doc: title words, body sentences, thumb bytes.
    void draw() {
        id_ = next_id_++;

        title_.assign("Document ");
        append_int(title_, id_);
        title_ += ':';
        for (auto n = 2 + rng_.below(4); n > 0; --n) {
            title_ += ' ';
            append_word(title_, zipf_word(), false);
        }

        body_.clear();
        while (body_.size() < body_size) {
            auto words = 4 + rng_.below(12);
            std::size_t w = zipf_word();
            append_word(body_, w, true);
            for (std::uint64_t n = 1; n < words; ++n) {
                // Phrases repeat as in real text; without them zlib only reaches about 2.4x.
                w = rng_.below(10) < 7 ? successor_[w] : zipf_word();
                body_ += rng_.below(8) == 0 ? ", " : " ";
                append_word(body_, w, false);
            }
            body_ += rng_.below(5) == 0 ? ".\n" : ". ";
        }
        body_.resize(body_size);

        for (std::size_t i = 0; i < thumb_size; i += 8) {
            auto x = rng_.next();
            for (std::size_t b = 0; b < 8; ++b)
                thumb_[i + b] = static_cast<std::uint8_t>(x >> 8 * b);
        }
    }

    splitmix64 rng_;
    std::int64_t next_id_ = 0;
    record_type_ptr type_ = make_record_type("Doc", {"id", "title", "body", "thumb"});
    std::vector<std::string> vocabulary_;
    std::vector<std::uint16_t> zipf_table_;
    std::array<std::size_t, vocabulary_size> successor_{};  // the word that usually follows

    std::int64_t id_ = 0;
    std::string title_;
    std::string body_;
    std::vector<std::uint8_t> thumb_;
};

}  // namespace

std::unique_ptr<workload> make_blobs_workload(std::uint64_t seed) {
    return std::make_unique<blobs_workload>(seed);
}

}  // namespace objwire::workloads
