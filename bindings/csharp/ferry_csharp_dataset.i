/* ferry bindings, C#: the native part of Dataset (ferry/dataset.h; the common
 * part is ../ferry_handles.i). Its C# side is src/Dataset.cs (constructors
 * from a Source as Context.Submit takes one, Epoch, Gather, GatherDevice) and
 * src/ResidentLoader.cs. */

/* The common constructor cannot take the pixels of a byte[] or Span<byte>
 * pinned for the call: the static upload below replaces it, and the C#
 * constructors adopt what it returns. */
%ignore ferry_dataset_s::ferry_dataset_s;
%newobject ferry_dataset_s::upload;
%csmethodmodifiers ferry_dataset_s::upload "internal";
%rename(EpochNative) ferry_dataset_s::epoch;
%csmethodmodifiers ferry_dataset_s::epoch "internal";
%rename(GatherNative) ferry_dataset_s::gather;
%csmethodmodifiers ferry_dataset_s::gather "internal";
%rename(GatherDeviceNative) ferry_dataset_s::gather_device;
%csmethodmodifiers ferry_dataset_s::gather_device "internal";
%typemap(csclassmodifiers) ferry_dataset_s "public partial class"

FERRY_CLOSED_CHECK(ferry_dataset_options, "the DatasetOptions")
FERRY_CLOSED_CHECK(ferry_dataset_info, "the DatasetInfo")

%extend ferry_dataset_s {
  /* ferry_dataset_create from `source`, with its data replaced by
   * (array_data, array_bytes) where array_data is not zero: a managed array
   * the caller pins for the call. */
  static ferry_dataset_s* upload(ferry_context_s* context, const ferry_source* source, const void* array_data,
                                 size_t array_bytes, const ferry_dataset_options* options) {
    ferry_source with_data;
    if (source != NULL && array_data != NULL) {
      if (source->sample_descs != NULL)
        ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "source has images (Source.SetImages): ",
                            "give no data array with them");
      with_data = *source;
      with_data.data = array_data;
      with_data.bytes = array_bytes;
      with_data.samples = NULL;
      source = &with_data;
    }
    ferry_dataset_t dataset = NULL;
    ferry_binding::check(ferry_dataset_create(&dataset, context, source, options));
    return dataset;
  }
}
