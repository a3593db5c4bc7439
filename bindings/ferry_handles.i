/* ferry bindings: the opaque handles as classes.
 *
 * SWIG is shown the handle structs as empty structs; the object a binding
 * holds is the handle value itself (an id ferry never reuses), so a method
 * called after close() reaches ferry with a destroyed (or, in Java and C#,
 * NULL) handle and raises ferry's FERRY_ERR_INVALID_HANDLE with its message. */

/* A Batch comes only from Context.submit (or Dataset.gather). */
%nodefaultctor ferry_batch_s;
struct ferry_context_s {};
struct ferry_batch_s {};
struct ferry_dataset_s {};

%newobject ferry_context_s::submit;
%newobject ferry_context_s::submit_and_wait_source;
%newobject ferry_context_s::stats;
%newobject ferry_batch_s::output;
%newobject ferry_dataset_s::info;
%newobject ferry_dataset_s::gather;
%newobject ferry_dataset_s::gather_device;

/* ---- Context ------------------------------------------------------------- */
%extend ferry_context_s {
  /* ferry_context_create; options NULL: the defaults. */
  ferry_context_s(const ferry_context_options* options = NULL) {
    ferry_context_t ctx = NULL;
    ferry_binding::check(ferry_context_create(&ctx, options));
    return ctx;
  }
  /* ferry_context_destroy: waits for batches in flight, frees everything.
   * Never throws (a handle already destroyed is simply gone). */
  ~ferry_context_s() { (void)ferry_context_destroy($self); }

  /* ferry_context_get_device. */
  ferry_device_kind device_kind() {
    ferry_device_kind kind = FERRY_DEVICE_AUTO;
    int index = 0;
    ferry_binding::check(ferry_context_get_device(&kind, &index, $self));
    return kind;
  }
  int device_index() {
    ferry_device_kind kind = FERRY_DEVICE_AUTO;
    int index = 0;
    ferry_binding::check(ferry_context_get_device(&kind, &index, $self));
    return index;
  }

  /* ferry_batch_submit: returns at once; see Batch. transform, output and
   * options may be NULL. The source memory must stay valid and unchanged
   * until Batch.source_reusable() (or wait) says so. */
  ferry_batch_s* submit(const ferry_source* source, const ferry_transform* transform = NULL,
                        const ferry_output* output = NULL,
                        const ferry_submit_options* options = NULL) {
    ferry_batch_t batch = NULL;
    ferry_binding::check(ferry_batch_submit(&batch, $self, source, transform, output, options));
    return batch;
  }
  /* Submits `source` with its data replaced by (array_data, array_bytes), then
   * blocks until the source may be overwritten (ferry_batch_wait_source): for
   * managed arrays that are pinned or copied only for the duration of a call
   * (Java byte[], C# byte[] and Span<byte>). The conversion itself is still
   * asynchronous; wait on the batch before reading its output. */
  ferry_batch_s* submit_and_wait_source(const ferry_source* source, const void* array_data,
                                        size_t array_bytes,
                                        const ferry_transform* transform = NULL,
                                        const ferry_output* output = NULL,
                                        const ferry_submit_options* options = NULL) {
    if (source == NULL) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "source is null");
    ferry_source with_data = *source;
    with_data.data = array_data;
    with_data.bytes = array_bytes;
    with_data.samples = NULL;
    ferry_batch_t batch = NULL;
    ferry_binding::check(ferry_batch_submit(&batch, $self, &with_data, transform, output, options));
    ferry_status status = ferry_batch_wait_source(batch);
    if (status != FERRY_OK) {
      std::string message = ferry_last_error();
      (void)ferry_batch_release(batch);
      throw ferry_binding::Error{status, message};
    }
    return batch;
  }

  /* ferry_transform_apply: data already in the context's memory; stream NULL/0 = legacy stream. */
  void convert(const ferry_source* source, const ferry_transform* transform,
               const ferry_output* output, ferry_cuda_stream stream = NULL) {
    ferry_binding::check(ferry_transform_apply($self, source, transform, output, stream));
  }

  /* ---- memory (memory.h) ---- */
  void* host_alloc(size_t bytes) {
    void* ptr = NULL;
    ferry_binding::check(ferry_memory_alloc_host(&ptr, $self, bytes));
    return ptr;
  }
  void host_free(void* ptr) { ferry_binding::check(ferry_memory_free_host($self, ptr)); }
  void host_free_on_stream(void* ptr, ferry_cuda_stream stream) {
    ferry_binding::check(ferry_memory_free_host_on_stream($self, ptr, stream));
  }
  void host_register(void* ptr, size_t bytes) {
    ferry_binding::check(ferry_memory_register_host($self, ptr, bytes));
  }
  void host_unregister(void* ptr) { ferry_binding::check(ferry_memory_unregister_host($self, ptr)); }
  void* device_alloc(size_t bytes, ferry_cuda_stream stream = NULL) {
    void* ptr = NULL;
    ferry_binding::check(ferry_memory_alloc_device(&ptr, $self, bytes, stream));
    return ptr;
  }
  void device_free(void* ptr, ferry_cuda_stream stream = NULL) {
    ferry_binding::check(ferry_memory_free_device($self, ptr, stream));
  }
  /* kinds: MemoryKind bits (FERRY_MEMORY_ALL = 7). */
  void memory_trim(unsigned int kinds) { ferry_binding::check(ferry_memory_trim($self, kinds)); }
  ferry_stats* stats() {
    ferry_stats* stats = ferry_binding::new_struct(ferry_stats_init);
    ferry_status status = ferry_stats_get(stats, $self);
    if (status != FERRY_OK) std::free(stats);
    ferry_binding::check(status);
    return stats;
  }
  void reset_stats() { ferry_binding::check(ferry_stats_reset($self)); }
}

/* ---- Batch ------------------------------------------------------------- */
%extend ferry_batch_s {
  /* ferry_batch_release. Never throws: after the context is destroyed the
   * handle is already invalid, which is fine here. */
  ~ferry_batch_s() { (void)ferry_batch_release($self); }

  /* ferry_batch_wait: raises the error that failed the batch. */
  void wait() { ferry_binding::check(ferry_batch_wait($self)); }
  /* ferry_batch_query: true when complete, false while in flight. */
  bool query() {
    ferry_status status = ferry_batch_query($self);
    if (status == FERRY_ERR_NOT_READY) return false;
    ferry_binding::check(status);
    return true;
  }
  /* ferry_batch_handoff: `stream` waits for the output on the device. */
  void stream_wait(ferry_cuda_stream stream) { ferry_binding::check(ferry_batch_handoff($self, stream)); }
  bool source_reusable() {
    int reusable = 0;
    ferry_binding::check(ferry_batch_query_source(&reusable, $self));
    return reusable != 0;
  }
  void wait_source() { ferry_binding::check(ferry_batch_wait_source($self)); }
  /* ferry_batch_describe_output: valid until the batch is released. */
  ferry_tensor_info* output() {
    ferry_tensor_info* info = ferry_binding::new_struct(ferry_tensor_info_init);
    ferry_status status = ferry_batch_describe_output(info, $self);
    if (status != FERRY_OK) std::free(info);
    ferry_binding::check(status);
    return info;
  }
}

/* ---- Dataset (dataset.h) --------------------------------------------------- */
/* A dataset held in the context's device memory; gathers are Batches.
 * Each language file maps (const long long* values, size_t count) from its
 * arrays (indices in) and (long long* out, size_t count) to its arrays
 * (an epoch's order out). */
%extend ferry_dataset_s {
  /* ferry_dataset_create: uploads, returns when done; options NULL: the defaults. */
  ferry_dataset_s(ferry_context_s* context, const ferry_source* source, const ferry_dataset_options* options = NULL) {
    ferry_dataset_t dataset = NULL;
    ferry_binding::check(ferry_dataset_create(&dataset, context, source, options));
    return dataset;
  }
  /* ferry_dataset_destroy: the memory goes back once gathers in flight complete. Never throws. */
  ~ferry_dataset_s() { (void)ferry_dataset_destroy($self); }

  ferry_dataset_info* info() {
    ferry_dataset_info* info = ferry_binding::new_struct(ferry_dataset_info_init);
    ferry_status status = ferry_dataset_get_info(info, $self);
    if (status != FERRY_OK) std::free(info);
    ferry_binding::check(status);
    return info;
  }
  /* ferry_dataset_source_index: the source sample dataset sample `index` holds. */
  long long source_index(long long index) {
    int64_t out = 0;
    ferry_binding::check(ferry_dataset_source_index(&out, $self, index));
    return out;
  }
  /* ferry_dataset_epoch: writes info().epoch_size indices into out. */
  void epoch(long long* out, size_t count, unsigned long long seed, unsigned long long epoch, bool shuffle) {
    ferry_binding::check(
        ferry_dataset_epoch(reinterpret_cast<int64_t*>(out), static_cast<int64_t>(count), $self, seed, epoch,
                            shuffle ? 1 : 0));
  }
  /* ferry_dataset_gather: samples values[0 .. count-1] into one Batch; transform,
   * output and options may be NULL. */
  ferry_batch_s* gather(const long long* values, size_t count, const ferry_transform* transform = NULL,
                        const ferry_output* output = NULL, const ferry_submit_options* options = NULL) {
    ferry_batch_t batch = NULL;
    ferry_binding::check(ferry_dataset_gather(&batch, $self, reinterpret_cast<const int64_t*>(values),
                                              static_cast<int64_t>(count), transform, output, options));
    return batch;
  }
  /* ferry_dataset_gather_device: `count` int64 indices at `indices` (an address in the
   * context's memory: a device tensor's data pointer), read when the gather runs. */
  ferry_batch_s* gather_device(void* indices, size_t count, const ferry_transform* transform = NULL,
                               const ferry_output* output = NULL, const ferry_submit_options* options = NULL) {
    ferry_batch_t batch = NULL;
    ferry_binding::check(ferry_dataset_gather_device(&batch, $self, static_cast<const int64_t*>(indices),
                                                     static_cast<int64_t>(count), transform, output, options));
    return batch;
  }
}

/* Where each function of the C header is in the bindings (the bindings keep
 * their own names, in each language's convention):
 *   ferry_version / _version_string / _status_string / _last_error   module functions
 *   ferry_device_count, ferry_device_get_properties                  device_count(), device_properties()
 *   ferry_*_init                                                      the struct constructors
 *   ferry_context_create / _destroy / _get_device                     Context(), its release, device_kind/index
 *   ferry_memory_alloc_host / _free_host / _free_host_on_stream /
 *   _register_host / _unregister_host / _alloc_device / _free_device /
 *   _trim                                                             Context.host_alloc ... memory_trim
 *   ferry_stats_get / _reset                                          Context.stats, reset_stats
 *   ferry_transform_describe_output                                   transform_output_info()
 *   ferry_transform_apply                                             Context.convert
 *   ferry_batch_submit                                                Context.submit (and submit_and_wait_source)
 *   ferry_batch_wait / _query / _handoff / _query_source /
 *   _wait_source / _describe_output / _release                        Batch.wait, query, stream_wait,
 *                                                                     source_reusable, wait_source, output,
 *                                                                     its release
 *   ferry_dataset_create / _destroy / _get_info / _source_index /
 *   _epoch / _gather / _gather_device                                 Dataset(), its release, info,
 *                                                                     source_index, epoch, gather,
 *                                                                     gather_device
 *   ferry_tensor_retain / _describe / _release                        Batch.retain_output_reference, ...
 *                                                                     (ferry_managed.i, python/ferry_python.i) */
