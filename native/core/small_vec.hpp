// A vector of trivially copyable values that keeps up to N of them inside itself: an NFA state's
// edges are mostly one or two, so most states allocate nothing (a grammar's automaton has thousands).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "heap_bytes.hpp"

namespace toolmask {

template <typename T, uint32_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVec holds trivially copyable values");
  static_assert(N > 0, "SmallVec keeps at least one value inside");

 public:
  SmallVec() = default;
  SmallVec(const SmallVec& o) { assign(o); }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) {
      size_ = 0;
      assign(o);
    }
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t capacity() const { return cap_; }
  bool onHeap() const { return cap_ > N; }  // whether the values live in a block of their own
  size_t heapBytes() const { return onHeap() ? heapBlock(sizeof(T) * cap_) : 0; }  // that block, as vectorBytes
  T* data() { return onHeap() ? heap_ : inline_; }
  const T* data() const { return onHeap() ? heap_ : inline_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](uint32_t i) { return data()[i]; }
  const T& operator[](uint32_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == cap_) {
      const T copy = v;  // `v` may live in this vector
      grow(cap_ * 2);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = v;
  }
  void reserve(uint32_t n) {
    if (n > cap_) grow(n);
  }
  void clear() { size_ = 0; }

 private:
  uint32_t size_ = 0;
  uint32_t cap_ = N;
  union {
    T inline_[N];
    T* heap_;
  };

  void grow(uint32_t n) {
    T* block = static_cast<T*>(std::malloc(sizeof(T) * n));
    if (!block) throw std::bad_alloc();
    if (size_) std::memcpy(block, data(), sizeof(T) * size_);
    release();
    heap_ = block;
    cap_ = n;
  }
  void release() {
    if (onHeap()) std::free(heap_);
    cap_ = N;
  }
  void assign(const SmallVec& o) {
    reserve(o.size_);
    if (o.size_) std::memcpy(data(), o.data(), sizeof(T) * o.size_);
    size_ = o.size_;
  }
  void take(SmallVec& o) {
    size_ = o.size_;
    cap_ = o.cap_;
    if (o.onHeap())
      heap_ = o.heap_;
    else if (o.size_)
      std::memcpy(inline_, o.inline_, sizeof(T) * o.size_);
    o.size_ = 0;
    o.cap_ = N;
  }
};

}  // namespace toolmask
